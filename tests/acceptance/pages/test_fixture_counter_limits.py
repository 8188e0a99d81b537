"""The fixture editor's IB error counter limits: one field per counter, each change recorded
with its reason, bad input named by field and kept on the page, and only the buyer may save."""

from __future__ import annotations

import copy

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from acceptance.forms.fixtures import FixtureForm
from acceptance.models import Fixture
from acceptance.selectors import fixtures as selectors
from acceptance.services.fixtures import _store, fixture_save
from tests.acceptance.pages.builders import fixture_post_data

pytestmark = pytest.mark.django_db

F = "thresholds__ib_counter_max__"


def _current(fx):
    return Fixture.objects.get(pk=fx.version.fixture_id).versions.order_by("-number").first()


def test_the_editor_shows_a_field_per_counter_with_the_agreed_limit(fx, buyer):
    page = buyer.client().get(reverse("acceptance:fixture-edit", args=[fx.request.pk]))
    html = page.content.decode()
    assert "Symbol errors (SymbolErrorCounter)" in html and "VL15 packets dropped" in html
    assert f'name="{F}LinkDownedCounter" value="0"' in html
    assert f'name="{F}SymbolErrorCounter" value="10"' in html
    assert f'name="{F}VL15Dropped"' in html and "empty: not judged" in html


def test_the_buyer_sets_adds_and_clears_limits_each_with_its_reason(fx, buyer):
    url = reverse("acceptance:fixture-edit", args=[fx.request.pk])
    data = fixture_post_data(
        fx.version,
        **{
            f"{F}SymbolErrorCounter": "5",
            f"reason__{F}SymbolErrorCounter": "New cables settle within minutes",
            f"{F}VL15Dropped": "0",
            f"reason__{F}VL15Dropped": "Subnet management traffic must not drop",
            f"{F}PortXmitDiscards": "",
            f"reason__{F}PortXmitDiscards": "Congestion is judged by bandwidth",
        },
    )
    response = buyer.client().post(url, data)
    assert response.status_code == 302, response.context["form"].errors
    spec = _current(fx).spec
    limits = spec["thresholds"]["ib_counter_max"]
    assert limits["SymbolErrorCounter"] == 5 and limits["VL15Dropped"] == 0
    assert "PortXmitDiscards" not in limits and limits["LinkDownedCounter"] == 0
    reasons = {o["reason"] for o in spec["overrides"]}
    assert {
        "New cables settle within minutes",
        "Subnet management traffic must not drop",
        "Congestion is judged by bandwidth",
    } <= reasons
    symbol = next(o for o in spec["overrides"] if o["field"].endswith("SymbolErrorCounter"))
    assert (symbol["default"], symbol["value"], symbol["by"]) == (10, 5, "alice")


def test_bad_limits_are_named_by_field_and_what_was_typed_stays(fx, buyer):
    url = reverse("acceptance:fixture-edit", args=[fx.request.pk])
    data = fixture_post_data(
        fx.version,
        name="Typed name",
        **{
            f"{F}LinkDownedCounter": "-1",
            f"{F}SymbolErrorCounter": "lots",
            f"reason__{F}SymbolErrorCounter": "typed reason",
        },
    )
    response = buyer.client().post(url, data)
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert errors[f"{F}LinkDownedCounter"] == [
        "Link downed (LinkDownedCounter): give 0 or more errors."
    ]
    assert errors[f"{F}SymbolErrorCounter"] == [
        "Symbol errors (SymbolErrorCounter): give a whole number of errors, or leave it empty."
    ]
    html = response.content.decode()
    assert f'name="{F}SymbolErrorCounter" value="lots"' in html
    assert f'name="{F}LinkDownedCounter" value="-1"' in html
    assert 'value="Typed name"' in html and 'value="typed reason"' in html
    assert _current(fx).spec == fx.version.spec


def test_a_changed_limit_without_a_reason_is_refused_on_its_row(fx, buyer):
    url = reverse("acceptance:fixture-edit", args=[fx.request.pk])
    data = fixture_post_data(fx.version, **{f"{F}PortRcvErrors": "3"})
    response = buyer.client().post(url, data)
    assert response.status_code == 200
    assert "reason" in response.context["form"].errors[f"{F}PortRcvErrors"][0]
    assert f'name="{F}PortRcvErrors" value="3"' in response.content.decode()


@pytest.mark.parametrize("role", ["outsider", "provider", "rival_provider"])
def test_only_the_buyer_may_change_the_limits(fx, role, request):
    who = request.getfixturevalue(role)
    url = reverse("acceptance:fixture-edit", args=[fx.request.pk])
    data = fixture_post_data(
        fx.version,
        **{f"{F}LinkDownedCounter": "50", f"reason__{F}LinkDownedCounter": "flaps are fine"},
    )
    assert who.client().post(url, data).status_code == 404
    assert _current(fx).spec["thresholds"]["ib_counter_max"]["LinkDownedCounter"] == 0


def test_a_spec_stored_before_the_limits_existed_takes_the_whole_map(fx, buyer):
    old = copy.deepcopy(fx.version.spec)
    old["thresholds"].pop("ib_counter_max")
    stored = _store(fixture=fx.version.fixture, spec=old, user=buyer.user)  # as stored then
    form = FixtureForm(spec=stored.spec, library=selectors.threshold_library(stored.spec))
    assert form.initial[f"{F}SymbolErrorCounter"] == 10  # the default the checks read
    path = "thresholds.ib_counter_max.VL15Dropped"
    version = fixture_save(
        fixture=fx.version.fixture, user=buyer.user, changes={path: 0},
        reasons={path: "VL15 carries subnet management"},
    )  # fmt: skip
    limits = version.spec["thresholds"]["ib_counter_max"]
    assert limits["VL15Dropped"] == 0 and limits["SymbolErrorCounter"] == 10
    assert version.spec["overrides"][-1]["field"] == "thresholds.ib_counter_max"


def test_a_counter_the_spec_does_not_know_is_refused_by_its_path(fx, buyer):
    path = "thresholds.ib_counter_max.LinkDowned"
    with pytest.raises(ValidationError) as exc:
        fixture_save(
            fixture=fx.version.fixture, user=buyer.user, changes={path: 0},
            reasons={path: "old name"},
        )  # fmt: skip
    assert path in exc.value.message_dict
