"""Providers acknowledge per bid; a later fixture or terms version asks them to do it again."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from acceptance.selectors.fixtures import (
    acknowledgement_for_bid,
    acknowledgement_state,
    acknowledgements_for_bids,
)
from acceptance.services import acknowledgement_submit, fixture_save
from contracts.services import terms_update
from core.errors import ServiceError

pytestmark = pytest.mark.django_db


def test_an_unacknowledged_bid_scores_as_not_acknowledged(fx):
    assert acknowledgement_for_bid(fx.bid) == ("not_acknowledged", 0)


def test_a_plain_acceptance_covers_the_current_fixture_and_terms(fx, provider):
    ack = acknowledgement_submit(bid=fx.bid, user=provider.user, status="accepted")
    assert ack.fixture_version == fx.version
    assert ack.terms_revision.number == fx.terms.version
    assert acknowledgement_for_bid(fx.bid) == ("accepted", 0)


def test_exceptions_are_kept_with_the_field_they_concern(fx, provider):
    acknowledgement_submit(
        bid=fx.bid,
        user=provider.user,
        status="accepted_with_exceptions",
        exceptions=[
            {"text": "S1 restore in 8 h, not 4 h", "field": "terms.s1_restore_minutes"},
            {"text": "", "field": ""},
            {"text": "We run DCGM level 2 only", "field": "thresholds.dcgm_level"},
        ],
    )
    state = acknowledgement_state(bid=fx.bid)
    assert [e["field"] for e in state.ack.exceptions] == [
        "terms.s1_restore_minutes",
        "thresholds.dcgm_level",
    ]
    assert acknowledgement_for_bid(fx.bid) == ("accepted_with_exceptions", 2)


@pytest.mark.parametrize(
    ("status", "exceptions", "key"),
    [
        ("accepted_with_exceptions", [], "exceptions"),
        ("accepted", [{"text": "No", "field": ""}], "status"),
        ("accepted_with_exceptions", [{"text": "No", "field": "thresholds.nope"}], "exceptions"),
        ("maybe", [], "status"),
    ],
)
def test_inconsistent_answers_are_refused_on_the_right_field(fx, provider, status, exceptions, key):
    with pytest.raises(ValidationError) as info:
        acknowledgement_submit(bid=fx.bid, user=provider.user, status=status, exceptions=exceptions)
    assert key in info.value.message_dict


def test_nothing_to_acknowledge_without_fixture_or_terms(world, provider):
    with pytest.raises(ServiceError, match="nothing to acknowledge"):
        acknowledgement_submit(bid=world.bid, user=provider.user, status="accepted")


def test_no_acknowledgement_after_the_deadline(fx, provider):
    fx.request.bid_deadline = timezone.now() - timedelta(minutes=1)
    fx.request.save()
    with pytest.raises(ServiceError, match="no longer takes bids"):
        acknowledgement_submit(bid=fx.bid, user=provider.user, status="accepted")


def test_a_new_fixture_version_makes_the_acknowledgement_stale(fx, buyer, provider):
    acknowledgement_submit(bid=fx.bid, user=provider.user, status="accepted")
    fixture_save(
        fixture=fx.version.fixture, user=buyer.user, changes={"runtime.cuda_version": "12.6"}
    )
    state = acknowledgement_state(bid=fx.bid)
    assert state.stale and "fixture is now version 2" in state.stale_reasons[0]
    assert acknowledgement_for_bid(fx.bid) == ("not_acknowledged", 0)
    acknowledgement_submit(bid=fx.bid, user=provider.user, status="accepted")
    assert acknowledgement_for_bid(fx.bid) == ("accepted", 0)


def test_changed_terms_make_the_acknowledgement_stale(fx, buyer, provider):
    acknowledgement_submit(bid=fx.bid, user=provider.user, status="accepted")
    terms_update(terms=fx.terms, user=buyer.user, data={"maintenance_notice_hours": 96})
    state = acknowledgement_state(bid=fx.bid)
    assert state.stale and "terms are now version 2" in state.stale_reasons[0]


def test_the_bulk_selector_is_one_query_for_any_number_of_bids(
    fx, provider, rival_provider, django_assert_num_queries
):
    acknowledgement_submit(bid=fx.bid, user=provider.user, status="accepted")
    acknowledgement_submit(
        bid=fx.rival_bid,
        user=rival_provider.user,
        status="accepted_with_exceptions",
        exceptions=[{"text": "a", "field": ""}, {"text": "b", "field": ""}],
    )
    with django_assert_num_queries(1):
        result = acknowledgements_for_bids([fx.bid, fx.rival_bid.pk, 999_999])
    assert result == {
        fx.bid.pk: ("accepted", 0),
        fx.rival_bid.pk: ("accepted_with_exceptions", 2),
        999_999: ("not_acknowledged", 0),
    }


def test_the_bulk_selector_agrees_with_the_single_one_on_stale_and_repeated_answers(
    fx, buyer, provider, rival_provider
):
    """Scoring reads the bulk verdict: a newer fixture makes the first bid's acknowledgement
    stale, the rival's newest answer (not its first) counts, terms bumps count too."""
    acknowledgement_submit(bid=fx.bid, user=provider.user, status="accepted")
    acknowledgement_submit(bid=fx.rival_bid, user=rival_provider.user, status="accepted")
    fixture_save(
        fixture=fx.version.fixture, user=buyer.user, changes={"runtime.cuda_version": "12.6"}
    )
    acknowledgement_submit(
        bid=fx.rival_bid,
        user=rival_provider.user,
        status="accepted_with_exceptions",
        exceptions=[{"text": "CUDA 12.6 from January", "field": ""}],
    )
    expected = {
        fx.bid.pk: ("not_acknowledged", 0),
        fx.rival_bid.pk: ("accepted_with_exceptions", 1),
    }
    assert acknowledgements_for_bids([fx.bid, fx.rival_bid]) == expected
    assert {b.pk: acknowledgement_for_bid(b) for b in (fx.bid, fx.rival_bid)} == expected

    terms_update(terms=fx.terms, user=buyer.user, data={"maintenance_notice_hours": 96})
    assert acknowledgements_for_bids([fx.rival_bid])[fx.rival_bid.pk] == ("not_acknowledged", 0)
    assert acknowledgement_for_bid(fx.rival_bid) == ("not_acknowledged", 0)
