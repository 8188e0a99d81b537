"""Helpers shared by the fixture, terms and acknowledgement tests."""

from __future__ import annotations

from typing import Any

from acceptance.forms.fixtures import FixtureForm
from acceptance.models import FixtureVersion
from acceptance.selectors import fixtures as selectors
from acceptance.services import fixture_from_template
from bids.models import CapacityRequest
from contracts.models import HandoffTerms
from contracts.services import terms_create


def attach_both(request: CapacityRequest, user: Any) -> tuple[FixtureVersion, HandoffTerms]:
    version = fixture_from_template(
        capacity_request=request, user=user, template="rank-sum-allreduce"
    )
    terms = terms_create(capacity_request=request, user=user, template="training-24x7")
    return version, terms


def fixture_post_data(version: FixtureVersion, **overrides: Any) -> dict[str, Any]:
    """What the browser posts for the edit form, unchanged, with `overrides` on top."""
    form = FixtureForm(spec=version.spec, library=selectors.threshold_library(version.spec))
    data: dict[str, Any] = {}
    for name, field in form.fields.items():
        value = form[name].value()
        if isinstance(value, bool):
            if value:
                data[name] = "on"
            continue
        if value is None:
            value = ""
        data[name] = field.prepare_value(value) if not isinstance(value, list) else value
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}
