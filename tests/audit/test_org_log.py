"""The organisation's audit log: every entry it may read, searchable and filtered by object,
actor, action and date, paginated, exported as CSV; never another provider's entries nor what
a sealed request still hides; the page's queries do not grow with its rows."""

from __future__ import annotations

import csv
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from bids.audit import record_invitee
from bids.services import question_ask
from tests.audit.conftest import open_request, pass_deadline

pytestmark = pytest.mark.django_db

LOG = reverse("audit:log")


def _asked(walk: Any, provider: Any, count: int) -> None:
    """`count` questions' entries, as asking records them (the request is awarded by now)."""
    for n in range(count):
        record_invitee(
            capacity_request=walk.request, provider_id=provider.org.pk, action="question.ask",
            user=provider.user, after={"number": n + 1},
        )  # fmt: skip


def _csv(role: Any, **params: str) -> list[dict[str, str]]:
    body = role.client().get(reverse("audit:log-export"), params).content.decode()
    return list(csv.DictReader(StringIO(body)))


def _actions(role: Any, **params: str) -> list[str]:
    return [row["action"] for row in _csv(role, **params)]


def test_each_party_reads_its_own_and_the_shared_entries_never_a_rivals(
    walk, buyer, provider, rival_provider
):
    other = open_request(buyer, provider, rival_provider, sealed=False)
    question_ask(
        capacity_request=other.request, provider=provider.org, user=provider.user, text="Rails?"
    )
    rows = _csv(rival_provider)
    keys = {row["object"] for row in rows}
    assert f"bid:{walk.bid.pk}" not in keys  # the winner's bid entries are Northwind's
    assert f"bid:{walk.rival_bid.pk}" in keys
    assert "question.ask" not in {row["action"] for row in rows}  # who asked stays hidden
    assert "request.publish" in {row["action"] for row in rows}  # shared with every invitee
    assert "nora" not in {row["actor"] for row in rows}  # nothing Northwind did
    mine = _actions(provider)
    assert "bid.award" in mine and "question.ask" in mine
    everything = _actions(buyer)
    assert "bid.award" in everything and "bid.lose" in everything
    page = rival_provider.client().get(LOG).content.decode()
    assert "nora" not in page and "Northwind" not in page.split('id="log"')[1]


def test_a_sealed_requests_buyer_reads_no_bid_entry_before_the_deadline(sealed_walk, buyer):
    assert not [a for a in _actions(buyer) if a.startswith("bid.")]
    assert "bid.submit" not in buyer.client().get(LOG).content.decode()
    pass_deadline(sealed_walk.request)
    assert _actions(buyer, action="bid.submit") == ["bid.submit", "bid.submit"]


def test_filters_narrow_by_object_actor_action_date_and_search(walk, buyer, provider):
    assert set(_actions(buyer, kind="bid")) == {"bid.submit", "bid.award", "bid.lose"}
    assert _actions(buyer, obj_key=f"bid:{walk.rival_bid.pk}") == ["bid.lose", "bid.submit"]
    assert {row["actor"] for row in _csv(buyer, actor="nora")} == {"nora"}
    assert _actions(buyer, action="request.publish") == ["request.publish"]
    assert "reservation.open" in _actions(buyer, q="reservation")
    today = timezone.localdate()
    assert _actions(buyer, since=str(today + timedelta(days=1))) == []
    assert (
        len(_actions(buyer, until=str(today)))
        == AuditEntry.objects.filter(buyer_org_id=buyer.org.pk).count()
    )


def test_a_bad_filter_is_named_on_its_field_and_kept(walk, buyer):
    response = buyer.client().get(LOG, {"obj_key": "bids 12", "q": "award", "until": "2020-01-01",
                                        "since": "2021-01-01"})  # fmt: skip
    assert response.status_code == 400
    page = response.content.decode()
    assert "Name one object as kind:number" in page and 'value="bids 12"' in page
    assert "The last day cannot be before the first" in page
    assert 'value="award"' in page


def test_the_log_pages_and_keeps_its_filters_on_the_next_page(walk, buyer, provider):
    _asked(walk, provider, 55)
    first = buyer.client().get(LOG, {"action": "question.ask"}).content.decode()
    assert "55 entries" in first and "Page 1 of 2" in first
    assert "?action=question.ask&amp;page=2" in first
    second = buyer.client().get(LOG, {"action": "question.ask", "page": "2"}).content.decode()
    assert second.count("<code>question.ask</code>") == 5
    empty = buyer.client().get(LOG, {"action": "request.publish", "actor": "rita"})
    assert 'id="log-empty"' in empty.content.decode()


def test_the_pages_queries_do_not_grow_with_its_rows(
    walk, buyer, provider, django_assert_max_num_queries
):
    client = buyer.client()
    client.get(LOG)  # warm the session and the organisation's caches
    with django_assert_max_num_queries(16) as few:
        client.get(LOG)
    _asked(walk, provider, 40)
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = client.get(LOG)
    assert response.content.decode().count("<code>question.ask</code>") == 40


def test_everything_on_a_request_is_one_filter_and_the_reservation_links_it(
    walk, buyer, provider, rival_provider
):
    """Maintenance, usage and incidents are objects of their own: the reservation's history
    shows its own entries and links the log of everything on its request."""
    from acceptance.audit import record_on_reservation
    from acceptance.models import Reservation

    reservation = Reservation.objects.get(request=walk.request)
    record_on_reservation(
        reservation=reservation, action="maintenance.announce", user=provider.user,
        obj_key="maintenance:1", after={"starts_at": "2027-01-05T02:00"},
    )  # fmt: skip
    other = open_request(buyer, provider, rival_provider, sealed=False)
    on_request = _actions(buyer, request=str(walk.request.pk))
    assert "maintenance.announce" in on_request and "reservation.open" in on_request
    assert "request.publish" in on_request
    elsewhere = _actions(buyer, request=str(other.request.pk))
    assert "request.publish" in elsewhere and "maintenance.announce" not in elsewhere
    page = buyer.client().get(reverse("burnin:reservation-detail", args=[reservation.pk]))
    assert f"/audit/?request={walk.request.pk}" in page.content.decode()
