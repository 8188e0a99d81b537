"""Who may reach which page. Every named route must appear in ROUTES (see test_every_route…)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tests.bids.attachment_helpers import frozen_attachment
from tests.tenancy import named_routes
from tests.text import shows_number

ROLES = ["buyer", "buyer_colleague", "provider", "rival_provider", "outsider", "anonymous"]
OK, REDIRECT, HIDDEN, LOGIN = 200, 302, 404, "login"


def _all(status: Any) -> dict[str, Any]:
    return dict.fromkeys(ROLES, status)


def _only(allowed: dict[str, Any]) -> dict[str, Any]:
    expected = dict.fromkeys(ROLES, HIDDEN)
    expected["anonymous"] = LOGIN
    expected.update(allowed)
    return expected


BUYERS_ONLY = _only({"buyer": OK, "buyer_colleague": OK})
BUYERS_POST = _only({"buyer": REDIRECT, "buyer_colleague": REDIRECT})
ANY_BUYER = _only({"buyer": OK, "buyer_colleague": OK, "outsider": OK})
OWNER_AND_BUYER = _only({"buyer": OK, "buyer_colleague": OK, "provider": OK})
PROVIDERS = _only({"provider": OK, "rival_provider": OK})


def _member(org: Any) -> Any:
    return org.memberships.order_by("pk").first().user


def _question(w: Any) -> int:
    """Question 1 on the open request, asked by Northwind (the `provider` role)."""
    from bids.services import question_ask

    provider = w.bid.provider
    q = question_ask(
        capacity_request=w.request, provider=provider, user=_member(provider), text="Rails?"
    )
    return q.number


def _addendum(w: Any) -> int:
    from bids.services import addendum_publish

    buyer = _member(w.request.buyer)
    a = addendum_publish(
        capacity_request=w.request, user=buyer, title="T", text="X", confirmed=True
    )
    return a.number


def _lot(w: Any) -> int:
    from tests.factories import LotFactory

    return LotFactory(request=w.request).number


def _delegation(w: Any) -> int:
    """The buyer's administrator delegates to a new colleague for a week."""
    from datetime import timedelta

    from django.utils import timezone

    from bids.models import Delegation
    from tests.factories import MembershipFactory

    org = w.request.buyer
    colleague = MembershipFactory(organization=org, user__username="dana").user
    today = timezone.localdate()
    return Delegation.objects.create(
        organization=org,
        delegator=_member(org),
        delegate=colleague,
        starts_on=today,
        ends_on=today + timedelta(days=7),
    ).pk


# name -> (method, args from the world, expected per role)
ROUTES: dict[str, tuple[str, Callable[[Any], list[Any]], dict[str, Any]]] = {
    "orgs:switch-org": ("post", lambda w: [], {**_all(REDIRECT), "anonymous": LOGIN}),
    "bids:request-list": ("get", lambda w: [], ANY_BUYER),
    # Each buyer organisation's own approval policy; an empty delegation post shows the page
    # again naming the missing fields.
    "bids:approval-policy": ("get", lambda w: [], ANY_BUYER),
    "bids:delegation-create": ("post", lambda w: [], ANY_BUYER),
    "bids:delegation-end": ("post", lambda w: [_delegation(w)], BUYERS_POST),
    "bids:request-create": ("get", lambda w: [], ANY_BUYER),
    "bids:request-detail": (
        "get",
        lambda w: [w.request.pk],
        _only({"buyer": OK, "buyer_colleague": OK, "provider": OK, "rival_provider": OK}),
    ),
    "bids:request-edit": ("get", lambda w: [w.request.pk], BUYERS_ONLY),
    "bids:request-publish": ("post", lambda w: [w.request.pk], BUYERS_POST),
    # Close, cancel and reopen: the confirmation page (POSTs: tests/bids/test_early_close.py).
    "bids:request-close": ("get", lambda w: [w.request.pk], BUYERS_ONLY),
    "bids:request-cancel": ("get", lambda w: [w.request.pk], BUYERS_ONLY),
    "bids:request-reopen": ("get", lambda w: [w.request.pk], BUYERS_ONLY),
    # The final round's confirmation step (POSTs: tests/bids/test_final_round.py).
    "bids:request-final-round": ("get", lambda w: [w.request.pk], BUYERS_ONLY),
    # Empty posts: the page again naming the missing text (tests/bids/test_clarifications.py).
    "bids:question-ask": ("post", lambda w: [w.request.pk], PROVIDERS),
    "bids:question-answer": ("post", lambda w: [w.request.pk, _question(w)], BUYERS_ONLY),
    "bids:addendum-acknowledge": (
        "post",
        lambda w: [w.request.pk, _addendum(w)],
        _only({"provider": REDIRECT, "rival_provider": REDIRECT}),
    ),
    "bids:request-invite": ("post", lambda w: [w.request.pk], BUYERS_POST),
    # The request is open, so its lots are fixed: the buyers are sent back to it, told why
    # (the forms themselves: tests/bids/test_lot_pages.py).
    "bids:lot-add": ("get", lambda w: [w.request.pk], BUYERS_POST),
    "bids:lot-edit": ("get", lambda w: [w.request.pk, _lot(w)], BUYERS_POST),
    "bids:lot-remove": ("post", lambda w: [w.request.pk, _lot(w)], BUYERS_POST),
    # An empty post: the buyer's page again, naming the missing fields (tests/bids/test_addenda.py).
    "bids:request-addendum": ("post", lambda w: [w.request.pk], BUYERS_ONLY),
    "bids:bid-start": (
        "post",
        lambda w: [w.request.pk],
        _only({"provider": REDIRECT, "rival_provider": REDIRECT}),
    ),
    "bids:inbox": ("get", lambda w: [], PROVIDERS),
    "bids:bid-detail": ("get", lambda w: [w.bid.pk], OWNER_AND_BUYER),
    "bids:bid-edit": ("get", lambda w: [w.bid.pk], _only({"provider": OK})),
    "bids:bid-submit": ("post", lambda w: [w.bid.pk], _only({"provider": REDIRECT})),
    "bids:bid-withdraw": ("post", lambda w: [w.bid.pk], _only({"provider": REDIRECT})),
    "bids:revision-detail": ("get", lambda w: [w.bid.pk, 1], OWNER_AND_BUYER),
    # The attach form; a frozen file's download; leaving it out of the next revision.
    "bids:bid-attachments": ("get", lambda w: [w.bid.pk], _only({"provider": OK})),
    "bids:bid-attachment-download": (
        "get",
        lambda w: [w.bid.pk, frozen_attachment(w).pk],
        OWNER_AND_BUYER,
    ),
    "bids:bid-attachment-remove": (
        "post",
        lambda w: [w.bid.pk, frozen_attachment(w).pk],
        _only({"provider": REDIRECT}),
    ),
}


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def _section(html: str, marker: str) -> str:
    start = html.index(marker)
    return html[start : html.index("</section>", start)]


def client_for(role: str, request: pytest.FixtureRequest) -> Client:
    if role == "anonymous":
        return Client()
    return request.getfixturevalue(role).client()


def test_every_route_has_a_tenancy_row() -> None:
    missing = named_routes() - set(ROUTES) - routes_in_other_tables()
    assert not missing, f"Add these routes to a tenancy table: {sorted(missing)}"


def routes_in_other_tables() -> set[str]:
    """Routes whose tenancy rows live in other apps' tables (they register here as they land)."""
    from tests import tenancy_registry

    return tenancy_registry.covered()


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_route_gives_each_role_what_it_may_see(name, role, world, request):
    method, args, expected = ROUTES[name]
    client = client_for(role, request)
    response = getattr(client, method)(reverse(name, args=args(world)))
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"


def test_an_outsiders_list_never_shows_the_request(world, outsider):
    page = outsider.client().get(reverse("bids:request-list")).content.decode()
    assert world.request.title not in page


def test_a_rival_provider_never_sees_the_other_bid_on_the_request_page(world, rival_provider):
    page = rival_provider.client().get(reverse("bids:request-detail", args=[world.request.pk]))
    html = page.content.decode()
    assert "Northwind" not in html
    assert reverse("bids:bid-detail", args=[world.bid.pk]) not in html


def test_a_sealed_request_shows_its_buyer_no_bid_and_no_bidder(world, buyer):
    world.request.sealed = True
    world.request.save()
    client = buyer.client()
    html = client.get(reverse("bids:request-detail", args=[world.request.pk])).content.decode()
    bids_section = _section(html, 'id="bids"')
    assert "sealed" in bids_section
    assert "Northwind" not in bids_section and "Rival Cloud" not in bids_section
    assert reverse("bids:bid-detail", args=[world.bid.pk]) not in html
    assert client.get(reverse("bids:bid-detail", args=[world.bid.pk])).status_code == 404
    assert client.get(reverse("bids:revision-detail", args=[world.bid.pk, 1])).status_code == 404


def test_the_buyer_sees_the_frozen_revision_not_the_providers_draft(world, buyer, provider):
    from decimal import Decimal

    from bids.services import bid_save_draft

    bid_save_draft(bid=world.bid, user=provider.user, data={"price_per_gpu_hour": Decimal("9.99")})
    html = buyer.client().get(reverse("bids:bid-detail", args=[world.bid.pk])).content.decode()
    assert not shows_number(html, "9.99")
    assert "2.400" in html


def test_drafts_never_reach_the_buyer(buyer, provider):
    from tests.factories import BidFactory, CapacityRequestFactory

    req = CapacityRequestFactory(buyer=buyer.org)
    draft = BidFactory(request=req, provider=provider.org)
    client = buyer.client()
    assert client.get(reverse("bids:bid-detail", args=[draft.pk])).status_code == 404
    html = client.get(reverse("bids:request-detail", args=[req.pk])).content.decode()
    assert provider.org.name not in _section(html, 'id="bids"')
    assert "No bid has been submitted yet" in html
