"""Who reads which entries: each party its own and the shared ones, never a rival's, on the
pages' history panels, in the CSV export and by API alike; a sealed request's buyer reads no
bid entry before the deadline."""

from __future__ import annotations

import csv
from collections.abc import Callable
from io import StringIO
from typing import Any

import pytest
from django.urls import reverse

from tests import tenancy_registry
from tests.api.v1.conftest import token_client
from tests.audit.conftest import pass_deadline
from tests.bids.test_tenancy import LOGIN, OK, OWNER_AND_BUYER, ROLES, _all, client_for
from tests.text import shows_number

pytestmark = pytest.mark.django_db

SIGNED_IN = {**_all(OK), "anonymous": LOGIN}

ROUTES: dict[str, tuple[str, Callable[[Any], list[Any]], dict[str, Any]]] = {
    # It says intact or where it breaks, nothing of any entry: anyone signed in may ask.
    "audit:verify": ("get", lambda w: [], SIGNED_IN),
    # The bid's history: its provider's and its buyer's; a rival and an outsider, who read
    # nothing of it, are answered 404 as for a bid that does not exist (tests below).
    "audit:export": ("get", lambda w: [f"bid:{w.bid.pk}"], OWNER_AND_BUYER),
    # The organisation's own log, page and CSV: each reads what it may (tests/audit/test_org_log).
    "audit:log": ("get", lambda w: [], SIGNED_IN),
    "audit:log-export": ("get", lambda w: [], SIGNED_IN),
}
tenancy_registry.register(*ROUTES)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_route_gives_each_role_what_it_may_see(name, role, world, request):
    method, args, expected = ROUTES[name]
    response = getattr(client_for(role, request), method)(reverse(name, args=args(world)))
    if expected[role] == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == expected[role], f"{name} as {role}"


def csv_actions(role: Any, key: str) -> list[str]:
    """The actions in the CSV; none when the export answers 404 (an object the role reads
    nothing of, exactly as one that does not exist)."""
    response = role.client().get(reverse("audit:export", args=[key]))
    if response.status_code == 404:
        return []
    assert response.status_code == 200
    body = response.content.decode()
    return [row["action"] for row in csv.DictReader(StringIO(body))]


def api_actions(role: Any, key: str) -> list[str]:
    response = token_client(role.user).get("/api/v1/audit/", {"object": key})
    if response.status_code == 404:
        return []
    assert response.status_code == 200
    return [entry["action"] for entry in response.json()["results"]]


def statuses(role: Any, key: str) -> tuple[int, int]:
    csv_status = role.client().get(reverse("audit:export", args=[key])).status_code
    api_status = token_client(role.user).get("/api/v1/audit/", {"object": key}).status_code
    return csv_status, api_status


def panel(role: Any, url: str) -> str:
    html = role.client().get(url).content.decode()
    start = html.index('id="history"')
    return html[start : html.index("</section>", start)]


def test_each_party_reads_its_own_bid_entries(walk, buyer, provider):
    key = f"bid:{walk.bid.pk}"
    everything = ["bid.start", "bid.submit", "bid.award"]
    assert csv_actions(provider, key) == everything
    assert api_actions(provider, key) == everything
    # The draft's start is the provider's alone.
    assert csv_actions(buyer, key) == api_actions(buyer, key) == ["bid.submit", "bid.award"]
    assert "bid.award" in panel(buyer, reverse("bids:bid-detail", args=[walk.bid.pk]))


def test_the_rival_never_reads_the_other_providers_bid_entries(walk, rival_provider):
    key = f"bid:{walk.bid.pk}"
    assert csv_actions(rival_provider, key) == []
    assert api_actions(rival_provider, key) == []
    assert api_actions(rival_provider, f"bid:{walk.rival_bid.pk}") == [
        "bid.start",
        "bid.submit",
        "bid.lose",
    ]


def test_an_object_the_party_may_not_see_is_not_found_never_a_header_row(
    walk, buyer, provider, rival_provider, outsider
):
    """As every other page answers them: 404, the same as for an object that does not exist."""
    bid, rival_bid = f"bid:{walk.bid.pk}", f"bid:{walk.rival_bid.pk}"
    reservation = f"reservation:{walk.reservation.pk}"
    request_key = f"request:{walk.request.pk}"
    missing = f"bid:{walk.rival_bid.pk + 1000}"
    for key in (bid, reservation):
        assert statuses(rival_provider, key) == (404, 404), key
    for key in (bid, rival_bid, reservation, request_key):
        assert statuses(outsider, key) == (404, 404), key
    assert statuses(provider, rival_bid) == (404, 404)
    assert statuses(buyer, missing) == (404, 404)
    # What the parties may see still answers, with its rows.
    assert statuses(provider, bid) == statuses(buyer, bid) == (200, 200)
    assert statuses(rival_provider, rival_bid) == statuses(rival_provider, request_key) == (
        200, 200,
    )  # fmt: skip
    body = provider.client().get(reverse("audit:export", args=[bid])).content.decode()
    assert len(body.splitlines()) > 1


def test_a_sealed_bid_is_not_found_by_its_buyer_before_the_deadline(sealed_walk, buyer, provider):
    key = f"bid:{sealed_walk.bid.pk}"
    assert statuses(buyer, key) == (404, 404)
    assert statuses(provider, key) == (200, 200)
    pass_deadline(sealed_walk.request)
    assert statuses(buyer, key) == (200, 200)


def test_the_request_history_shares_only_what_names_no_bidder(walk, buyer, rival_provider):
    key = f"request:{walk.request.pk}"
    shared = ["request.publish", "request.close", "request.award"]
    assert api_actions(rival_provider, key) == ["request.invite", *shared]
    assert api_actions(buyer, key) == [
        "request.invite", "request.invite", "request.publish", "request.close", "request.award",
    ]  # fmt: skip
    award = token_client(rival_provider.user).get("/api/v1/audit/", {"object": key}).json()
    assert award["results"][-1]["after"] == {"status": "awarded"}  # no winner, no price
    history = panel(rival_provider, reverse("bids:request-detail", args=[walk.request.pk]))
    assert "Northwind" not in history
    assert not shows_number(history, "2.4")  # the winning price; "12:22.448Z" is not it
    assert "Rival Cloud" in history  # its own invitation


def test_the_reservation_history_is_the_two_parties(walk, buyer, provider, rival_provider):
    key = f"reservation:{walk.reservation.pk}"
    assert api_actions(buyer, key) == api_actions(provider, key) == ["reservation.open"]
    assert api_actions(rival_provider, key) == []
    url = reverse("burnin:reservation-detail", args=[walk.reservation.pk])
    assert "reservation.open" in panel(provider, url)


def test_an_outsider_reads_nothing(walk, outsider):
    for key in (f"request:{walk.request.pk}", f"bid:{walk.bid.pk}", f"bid:{walk.rival_bid.pk}"):
        assert csv_actions(outsider, key) == []
        assert api_actions(outsider, key) == []


def test_a_sealed_requests_buyer_reads_no_bid_entry_before_the_deadline(
    sealed_walk, buyer, provider
):
    key = f"bid:{sealed_walk.bid.pk}"
    assert api_actions(provider, key) == ["bid.start", "bid.submit"]
    assert api_actions(buyer, key) == []
    assert csv_actions(buyer, key) == []
    pass_deadline(sealed_walk.request)
    assert api_actions(buyer, key) == ["bid.submit"]


def test_the_api_refuses_an_object_it_cannot_parse(walk, buyer):
    client = token_client(buyer.user)
    for bad in ("", "request", "request:abc", "order:1", "request:0"):
        response = client.get("/api/v1/audit/", {"object": bad})
        assert response.status_code == 400, bad
        assert "object" in response.json()["errors"]


def test_the_csv_writes_a_formula_like_reason_as_text(world, buyer):
    from bids.audit import record_request

    record_request(
        capacity_request=world.request,
        action="request.edit",
        user=buyer.user,
        reason="=1+cmd|'/C calc'!A0",
    )
    body = buyer.client().get(reverse("audit:export", args=[f"request:{world.request.pk}"]))
    rows = list(csv.DictReader(StringIO(body.content.decode())))
    assert rows[-1]["reason"] == "'=1+cmd|'/C calc'!A0"
