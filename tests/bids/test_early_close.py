"""Early close and reopen: sealing ends at the deadline or the close, whichever comes first;
close, cancel and reopen need a confirmation; drafts freeze; a reopen never seals again."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format

from audit.models import AuditEntry
from bids import selectors, services
from bids.choices import RequestStatus
from bids.models import CapacityRequest
from core.lifecycle import MoveRefused

pytestmark = pytest.mark.django_db


@pytest.fixture
def sealed(world) -> CapacityRequest:
    """The world's request, sealed, with two submitted bids and a deadline weeks away."""
    req = world.request
    req.sealed = True
    req.bid_deadline = timezone.now() + timedelta(days=17)
    req.save()
    return req


def _bids_section(html: str) -> str:
    start = html.index('id="bids"')
    return html[start : html.index("</section>", start)]


def test_an_early_close_opens_the_sealed_bids_at_once(sealed, buyer):
    assert (
        sealed.bids_hidden_from_buyer
        and selectors.bid_rows_for_buyer(capacity_request=sealed) == []
    )
    services.request_close(capacity_request=sealed, user=buyer.user, confirmed=True)
    sealed.refresh_from_db()
    assert sealed.status == RequestStatus.CLOSED and not sealed.deadline_passed
    assert sealed.bids_opened_at is not None and sealed.closed_at is not None
    assert not sealed.bids_hidden_from_buyer
    assert len(selectors.bid_rows_for_buyer(capacity_request=sealed)) == 2
    # The query form of the rule agrees with the property.
    assert not CapacityRequest.objects.filter(pk=sealed.pk).bids_hidden_from_buyer().exists()


def test_a_close_needs_its_confirmation(sealed, buyer):
    with pytest.raises(MoveRefused) as refused:
        services.request_close(capacity_request=sealed, user=buyer.user)
    assert refused.value.status_code == 400 and "confirm" in refused.value.message_dict
    sealed.refresh_from_db()
    assert sealed.status == RequestStatus.OPEN and sealed.bids_hidden_from_buyer


def test_a_close_after_the_deadline_records_the_bids_opened_at_the_deadline(world, buyer):
    deadline = timezone.now() - timedelta(hours=2)
    CapacityRequest.objects.filter(pk=world.request.pk).update(sealed=True, bid_deadline=deadline)
    world.request.refresh_from_db()
    services.request_close(capacity_request=world.request, user=buyer.user, confirmed=True)
    assert world.request.bids_opened_at == deadline


def test_the_close_page_says_what_happens_then_asks(sealed, buyer):
    client = buyer.client()
    url = reverse("bids:request-close", args=[sealed.pk])
    page = client.get(url).content.decode()
    assert "The sealed bids open to you at once" in page
    assert "Drafts freeze" in page and "Every invited provider is told" in page
    # A post without the confirmation changes nothing and asks again.
    again = client.post(url)
    assert again.status_code == 200 and "Confirmation required" in again.content.decode()
    sealed.refresh_from_db()
    assert sealed.status == RequestStatus.OPEN
    done = client.post(url, {"confirm": "on"})
    assert done.status_code == 302
    html = client.get(reverse("bids:request-detail", args=[sealed.pk])).content.decode()
    bids = _bids_section(html)
    assert "Northwind" in bids and "Rival Cloud" in bids
    assert 'id="award-panel"' in html and 'id="reopen"' in html
    assert "sealed bids, opened" in html


def _seal_state(client, url: str) -> str:
    html = client.get(url).content.decode()
    return re.findall(r'<span class="tag" id="seal-state">(.*?)</span>', html)[0]


def _shown(moment: datetime) -> str:
    return date_format(timezone.localtime(moment), "j M Y H:i T")


def test_the_head_says_in_one_wording_when_sealed_bids_open_then_when_they_opened(sealed, buyer):
    """Before the close, the request's page and the close page both say when the bids open;
    after it, when they opened: 'sealed bids, opening …' then 'sealed bids, opened …'."""
    client = buyer.client()
    detail = reverse("bids:request-detail", args=[sealed.pk])
    before = f"sealed bids, opening {_shown(sealed.bid_deadline)} or at an early close"
    assert _seal_state(client, detail) == before
    assert _seal_state(client, reverse("bids:request-close", args=[sealed.pk])) == before

    req = _closed(sealed, buyer)
    assert req.bids_opened_at is not None
    assert _seal_state(client, detail) == f"sealed bids, opened {_shown(req.bids_opened_at)}"


def test_bids_sealed_to_their_deadline_say_they_opened_then(sealed, buyer):
    deadline = timezone.now() - timedelta(hours=3)
    CapacityRequest.objects.filter(pk=sealed.pk).update(bid_deadline=deadline)
    url = reverse("bids:request-detail", args=[sealed.pk])
    assert _seal_state(buyer.client(), url) == f"sealed bids, opened {_shown(deadline)}"


def test_a_draft_past_its_deadline_says_sealed_not_opened(sealed, buyer):
    """Nothing opens before publishing: a draft whose deadline has passed was never opened."""
    CapacityRequest.objects.filter(pk=sealed.pk).update(
        status=RequestStatus.DRAFT, bid_deadline=timezone.now() - timedelta(days=3)
    )
    url = reverse("bids:request-detail", args=[sealed.pk])
    assert _seal_state(buyer.client(), url) == "sealed bids"


def test_the_cancel_page_asks_too(world, buyer):
    client = buyer.client()
    url = reverse("bids:request-cancel", args=[world.request.pk])
    assert "cancelled for good" in client.get(url).content.decode()
    assert "Confirmation required" in client.post(url).content.decode()
    client.post(url, {"confirm": "on"})
    world.request.refresh_from_db()
    assert world.request.status == RequestStatus.CANCELLED


def test_drafts_freeze_on_the_providers_pages(sealed, buyer, provider, world):
    services.request_close(capacity_request=sealed, user=buyer.user, confirmed=True)
    client = provider.client()
    page = client.get(reverse("bids:bid-detail", args=[world.bid.pk])).content.decode()
    assert "Bidding closed on" in page
    assert reverse("bids:bid-edit", args=[world.bid.pk]) not in page
    assert reverse("bids:bid-submit", args=[world.bid.pk]) not in page
    assert "Submit revision" not in page
    # The edit page offers no form either: it sends the provider back, saying why.
    edit = client.get(reverse("bids:bid-edit", args=[world.bid.pk]), follow=True)
    html = edit.content.decode()
    assert "Bidding closed on" in html and 'name="submit"' not in html
    with pytest.raises(ValidationError, match="Bidding closed on"):
        services.bid_save_draft(bid=world.bid, user=provider.user, data={"site": "Elsewhere"})


def _closed(sealed, buyer) -> CapacityRequest:
    services.request_close(capacity_request=sealed, user=buyer.user, confirmed=True)
    sealed.refresh_from_db()
    return sealed


def test_a_reopen_takes_bids_until_the_new_deadline_and_never_seals_again(sealed, buyer):
    req = _closed(sealed, buyer)
    old = req.bid_deadline
    new = timezone.now() + timedelta(days=21)
    services.request_reopen(capacity_request=req, user=buyer.user, bid_deadline=new, confirmed=True)
    req.refresh_from_db()
    assert req.status == RequestStatus.OPEN and req.bid_deadline == new
    assert req.closed_to_bids_reason() is None and req.closed_at is None
    assert (
        not req.bids_hidden_from_buyer
        and len(selectors.bid_rows_for_buyer(capacity_request=req)) == 2
    )
    entry = AuditEntry.objects.filter(action="request.reopen").get()
    assert entry.before["bid_deadline"].startswith(old.isoformat()[:16])
    assert entry.after["bid_deadline"].startswith(new.isoformat()[:16])


@pytest.mark.parametrize(
    ("deadline", "message"),
    [
        (None, "Give the new bid deadline"),
        (lambda: timezone.now() - timedelta(minutes=5), "must be in the future"),
        (lambda: timezone.now() + timedelta(days=365), "before the reservation starts"),
    ],
)
def test_a_reopen_needs_a_future_deadline_named_on_its_field(sealed, buyer, deadline, message):
    req = _closed(sealed, buyer)
    with pytest.raises(ValidationError) as refused:
        services.request_reopen(
            capacity_request=req,
            user=buyer.user,
            bid_deadline=deadline() if deadline else None,
            confirmed=True,
        )
    assert message in refused.value.message_dict["bid_deadline"][0]
    req.refresh_from_db()
    assert req.status == RequestStatus.CLOSED


def test_a_reopen_needs_its_confirmation(sealed, buyer):
    req = _closed(sealed, buyer)
    with pytest.raises(MoveRefused) as refused:
        services.request_reopen(
            capacity_request=req, user=buyer.user, bid_deadline=timezone.now() + timedelta(days=3)
        )
    assert "confirm" in refused.value.message_dict


def test_only_a_closed_request_reopens(world, buyer):
    with pytest.raises(MoveRefused, match="cannot be reopened") as refused:
        services.request_reopen(
            capacity_request=world.request,
            user=buyer.user,
            bid_deadline=timezone.now() + timedelta(days=3),
            confirmed=True,
        )
    assert refused.value.status_code == 409


def test_the_reopen_form_keeps_what_was_typed_and_names_the_field(sealed, buyer):
    req = _closed(sealed, buyer)
    client = buyer.client()
    typed = (timezone.localtime() - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    url = reverse("bids:request-reopen", args=[req.pk])
    response = client.post(url, {"bid_deadline": typed, "confirm": "on"})
    html = response.content.decode()
    assert response.status_code == 200 and "must be in the future" in html
    assert 'id="id_bid_deadline_error"' in html and f'value="{typed}"' in html
    later = (timezone.localtime() + timedelta(days=10)).strftime("%Y-%m-%dT%H:%M")
    unconfirmed = client.post(url, {"bid_deadline": later}).content.decode()
    assert "Confirmation required" in unconfirmed and f'value="{later}"' in unconfirmed
    assert client.post(url, {"bid_deadline": later, "confirm": "on"}).status_code == 302
    req.refresh_from_db()
    assert req.status == RequestStatus.OPEN


def test_the_reopen_page_says_opened_bids_stay_visible(sealed, buyer):
    req = _closed(sealed, buyer)
    page = buyer.client().get(reverse("bids:request-reopen", args=[req.pk])).content.decode()
    assert "Bids already opened stay visible to you" in page


def test_the_buyer_reads_the_bids_history_once_an_early_close_opens_them(sealed, buyer, world):
    from audit.selectors import entries_for

    key = f"bid:{world.bid.pk}"
    assert not entries_for(org=buyer.org, obj_key=key).exists()
    services.request_close(capacity_request=sealed, user=buyer.user, confirmed=True)
    assert entries_for(org=buyer.org, obj_key=key).filter(action="bid.submit").exists()
