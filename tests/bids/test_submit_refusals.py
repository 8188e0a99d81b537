"""One submit names everything that stops it: the terms, the lots, and what each app listening
to `bid_submitting` refuses, each under its own name; anything else a listener raises is raised."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.forms.models import model_to_dict
from django.urls import reverse

from acceptance.models import AckStatus
from acceptance.services.acknowledgements import acknowledgement_submit
from bids.forms import BidForm
from bids.models import Bid
from bids.services import bid_save_draft, bid_submit
from bids.signals import bid_submitting
from core.errors import Conflict
from questionnaire import selectors, services
from tests.bids.submit_helpers import (
    LOT_UNACKNOWLEDGED,
    OWNER_MISSING,
    REGION_MISSING,
    three_problem_draft,
)
from tests.questionnaire.conftest import full_answers

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(buyer, provider) -> Bid:
    return three_problem_draft(buyer, provider)


def _unchanged(bid: Bid) -> tuple[Any, ...]:
    bid.refresh_from_db()
    return bid.status, bid.latest_revision_number, bid.has_unsubmitted_changes, bid.lot_offers


def test_one_submit_names_the_term_the_lot_and_the_answer_each_under_its_own_key(
    draft, provider, caplog
):
    before = _unchanged(draft)
    with pytest.raises(ValidationError) as refused:
        bid_submit(bid=draft, user=provider.user)
    # A refusal is the provider's to fix, not a fault for the logs.
    assert not [r for r in caplog.records if r.name == "django.dispatch"]
    assert refused.value.message_dict == {
        "region": [REGION_MISSING],
        "lot_offers": [LOT_UNACKNOWLEDGED],
        "answers.detect.owner": [OWNER_MISSING],
    }
    assert _unchanged(draft) == before and not draft.revisions.exists()


def test_with_all_three_fixed_the_submit_freezes_the_revision(draft, provider):
    acknowledgement_submit(
        bid=draft,
        user=provider.user,
        status=AckStatus.ACCEPTED,
        lot=draft.request.lots.get(number=2),
    )
    bid_save_draft(bid=draft, user=provider.user, data={"region": "eu"})
    qs = selectors.current_question_set(capacity_request=draft.request)
    services.answers_save(bid=draft, user=provider.user, raw=full_answers(qs))
    revision = bid_submit(bid=draft, user=provider.user)
    assert revision.number == 1 and revision.region == "eu"
    assert revision.questionnaire["answers"]["detect.owner"]


@pytest.fixture
def listener() -> Iterator[list[Exception]]:
    """A receiver of `bid_submitting` that raises what the test puts in the list."""
    raises: list[Exception] = []

    def receiver(sender: type[Bid], **kwargs: Any) -> dict[str, Any]:
        if raises:
            raise raises[0]
        return {}

    bid_submitting.connect(receiver, weak=False, dispatch_uid="tests.listener")
    yield raises
    bid_submitting.disconnect(dispatch_uid="tests.listener")


def test_a_listener_that_fails_otherwise_is_raised_not_merged(draft, provider, listener):
    listener.append(RuntimeError("the listener broke"))
    before = _unchanged(draft)
    with pytest.raises(RuntimeError, match="the listener broke"):
        bid_submit(bid=draft, user=provider.user)
    assert _unchanged(draft) == before and not draft.revisions.exists()


def test_a_refusal_with_a_status_of_its_own_is_raised_as_it_is(draft, provider, listener):
    listener.append(Conflict("Not now: the request is being re-scored."))
    with pytest.raises(Conflict, match="being re-scored"):
        bid_submit(bid=draft, user=provider.user)


def test_a_listeners_field_refusal_joins_the_others(draft, provider, listener):
    listener.append(ValidationError({"lot_offers": ["Lot 2 is booked elsewhere."]}))
    with pytest.raises(ValidationError) as refused:
        bid_submit(bid=draft, user=provider.user)
    errors = refused.value.message_dict
    assert sorted(errors["lot_offers"]) == sorted(
        [LOT_UNACKNOWLEDGED, "Lot 2 is booked elsewhere."]
    )
    assert errors["region"] == [REGION_MISSING]
    assert errors["answers.detect.owner"] == [OWNER_MISSING]


def _submit_on_the_form(draft: Bid, provider: Any, **fields: str) -> Any:
    data = model_to_dict(draft, fields=BidForm.Meta.fields)
    post = {k: v for k, v in data.items() if v is not None and v is not False}
    post |= {"lots-lot_2_price": "2.40", "lots-lot_2_nodes": "2", "submit": "1", **fields}
    return provider.client().post(reverse("bids:bid-edit", args=[draft.pk]), post)


def test_the_bid_form_shows_each_refusal_where_it_belongs(draft, provider):
    response = _submit_on_the_form(draft, provider)
    assert response.status_code == 200
    form, lot_form = response.context["form"], response.context["lot_form"]
    assert form.errors["region"] == [REGION_MISSING]
    assert lot_form.non_field_errors() == [LOT_UNACKNOWLEDGED]
    assert OWNER_MISSING in form.non_field_errors()
    assert (
        "Not submitted: fix what is listed here and the fields marked below. Your draft is kept."
        in form.non_field_errors()
    )
    assert not draft.revisions.exists()


def test_a_missing_answer_refused_on_the_bid_form_links_the_questionnaire(draft, provider):
    """The bid form has no answer fields: it says where the answer is given, and points at no
    field of its own when none is wrong."""
    acknowledgement_submit(
        bid=draft,
        user=provider.user,
        status=AckStatus.ACCEPTED,
        lot=draft.request.lots.get(number=2),
    )
    response = _submit_on_the_form(draft, provider, region="eu")
    assert response.status_code == 200
    errors = response.context["form"].non_field_errors()
    assert OWNER_MISSING in errors
    assert "Not submitted: fix what is listed here. Your draft is kept." in errors
    html = response.content.decode()
    answers_page = reverse("questionnaire:answers-edit", args=[draft.pk])
    assert f'1 questionnaire answer to give or fix: <a href="{answers_page}">' in html
    assert not draft.revisions.exists()


def test_a_lot_request_without_offers_is_refused_on_the_lots_not_on_the_worked_out_price(
    draft, provider
):
    Bid.objects.filter(pk=draft.pk).update(price_per_gpu_hour=None)
    draft.refresh_from_db()
    response = _submit_on_the_form(
        draft, provider, **{"lots-lot_2_price": "", "lots-lot_2_nodes": ""}
    )
    form, lot_form = response.context["form"], response.context["lot_form"]
    assert lot_form.non_field_errors() == ["Make an offer on at least one lot before submitting."]
    # The price box is worked out from the offers and cannot be typed in.
    assert "price_per_gpu_hour" not in form.errors and "nodes" not in form.errors


def test_the_bid_pages_submit_button_flashes_every_refusal(draft, provider):
    response = provider.client().post(reverse("bids:bid-submit", args=[draft.pk]), follow=True)
    flashed = [str(m) for m in response.context["messages"]]
    assert {REGION_MISSING, LOT_UNACKNOWLEDGED, OWNER_MISSING} <= set(flashed)
    assert not draft.revisions.exists()
