"""Handoff terms: template defaults, validation on the field, a frozen snapshot per change."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from bids.choices import RequestStatus
from contracts.defaults import BUSINESS_HOURS
from contracts.models import FrozenTermsRevisionError, HandoffTermsRevision
from contracts.selectors import severity_rows
from contracts.services import terms_create, terms_update
from contracts.validation import validate_terms
from core.errors import ServiceError
from engine.formatting import duration

pytestmark = pytest.mark.django_db


def test_it_starts_from_the_template_with_revision_1(world, buyer):
    terms = terms_create(capacity_request=world.request, user=buyer.user, template="business-hours")
    assert terms.version == 1 and terms.template == "business-hours"
    assert terms.coverage_timezone == BUSINESS_HOURS["coverage_timezone"]
    revision = terms.revisions.get()
    assert revision.snapshot["s1_restore_minutes"] == 480
    assert revision.snapshot["degraded_step_time_pct"] == "10.0"
    assert len(revision.sha256) == 64


def test_a_change_freezes_the_next_revision_and_no_change_does_not(fx, buyer):
    same = terms_update(terms=fx.terms, user=buyer.user, data={"s1_response_minutes": 15})
    assert same.version == 1
    changed = terms_update(terms=fx.terms, user=buyer.user, data={"s1_response_minutes": 10})
    assert changed.version == 2
    assert [r.number for r in changed.revisions.all()] == [2, 1]
    assert changed.revisions.get(number=1).snapshot["s1_response_minutes"] == 15


def test_revisions_never_change(fx):
    revision = fx.terms.revisions.get()
    with pytest.raises(FrozenTermsRevisionError):
        revision.save()
    with pytest.raises(FrozenTermsRevisionError):
        HandoffTermsRevision.objects.filter(pk=revision.pk).update(sha256="x")


def test_resetting_to_a_template_is_a_new_version(fx, buyer):
    terms = terms_create(capacity_request=fx.request, user=buyer.user, template="business-hours")
    assert terms.pk == fx.terms.pk and terms.version == 2 and terms.template == "business-hours"


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        ({"s1_restore_minutes": 10}, "s1_restore_minutes", "cannot be shorter"),
        ({"s2_response_minutes": 5}, "s2_response_minutes", "must not be faster than S1"),
        ({"s3_restore_minutes": 300}, "s3_restore_minutes", "must not be faster than S2"),
        ({"recovery_nccl_margin_pct": 120}, "recovery_nccl_margin_pct", "between 0 and 100"),
        ({"coverage_timezone": "Mars/Olympus"}, "coverage_timezone", "not a time zone"),
    ],
)
def test_inconsistent_terms_are_refused_on_the_field(fx, buyer, data, field, words):
    with pytest.raises(ValidationError) as info:
        terms_update(terms=fx.terms, user=buyer.user, data=data)
    assert words in " ".join(info.value.message_dict[field])
    fx.terms.refresh_from_db()
    assert fx.terms.version == 1


def test_terms_of_a_closed_request_cannot_change(fx, buyer):
    fx.request.status = RequestStatus.CLOSED
    fx.request.save()
    with pytest.raises(ServiceError):
        terms_update(terms=fx.terms, user=buyer.user, data={"spares": "none"})


def test_the_validator_is_plain_python():
    assert validate_terms({"s1_response_minutes": 15, "s1_restore_minutes": 240}) == {}


def test_clocks_read_with_units(fx):
    assert [duration(m) for m in (15, 90, 240, 1440, 2880)] == [
        "15 min",
        "90 min",
        "4 h",
        "24 h",
        "2 d",
    ]
    rows = severity_rows(terms=fx.terms)
    assert rows[0]["label"].startswith("S1") and rows[0]["restore_text"] == "4 h"


def test_tiers_and_severities_sent_as_data_are_checked():
    from contracts.validation import validate_terms

    errors = validate_terms(
        {"sla_credit_tiers": [{"below_pct": "99.9", "credit_pct": "ten"}, {"below_pct": "200",
         "credit_pct": "5"}], "downtime_severities": ["S1", "S9"]},
        owners_required=False,
    )  # fmt: skip
    assert errors["sla_credit_tiers"] == [
        "Tier 1: give below_pct and credit_pct as numbers.",
        "Tier 2: percentages are between 0 and 100.",
    ]
    assert errors["downtime_severities"] == ["Choose among S1, S2, S3."]
