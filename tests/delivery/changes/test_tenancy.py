"""Who reaches the planned-change routes: the buyer's members and the awarded provider; the
rival provider, an outsider (another buyer) and anonymous visitors do not, downloads included.
The provider alone changes the canary's evidence; the buyer alone answers (refusals flashed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

from acceptance.models import Evidence
from delivery.models import PlannedChange
from incidents.models import ChangeStatus
from tests import tenancy_registry
from tests.bids.test_tenancy import HIDDEN, LOGIN, OK, REDIRECT, ROLES, _only, client_for
from tests.delivery.changes.helpers import PASSING, announce, change_world, upload_canary

pytestmark = pytest.mark.django_db

PARTIES_GET = _only({"buyer": OK, "buyer_colleague": OK, "provider": OK})
PARTIES_POST = _only({"buyer": REDIRECT, "buyer_colleague": REDIRECT, "provider": REDIRECT})


class World:
    change: PlannedChange
    evidence: Evidence


def _evidence(w: World) -> list[Any]:
    return [w.evidence.pk]


ROUTES: dict[str, tuple[str, Callable[[World], list[Any]], dict[str, Any]]] = {
    # The form for the provider; the buyer reads why it may not announce.
    "delivery:change-new": ("get", lambda w: [w.change.reservation_id], PARTIES_GET),
    "delivery:change-detail": ("get", lambda w: [w.change.pk], PARTIES_GET),
    "delivery:change-status": ("get", lambda w: [w.change.pk], PARTIES_GET),
    # An empty upload comes back on the change page with its errors, as a burn-in or pilot
    # upload does; a file from the buyer is refused by party (tests/delivery/changes pages).
    "delivery:canary-upload": ("post", lambda w: [w.change.pk], PARTIES_GET),
    # An answer without a decision comes back with its errors, for either party.
    "delivery:change-answer": ("post", lambda w: [w.change.pk], PARTIES_GET),
    "delivery:canary-evidence-download": ("get", _evidence, PARTIES_GET),
    "delivery:canary-evidence-retry": ("post", _evidence, PARTIES_POST),
    "delivery:canary-evidence-withdraw": ("post", _evidence, PARTIES_POST),
}
tenancy_registry.register(*ROUTES)


@pytest.fixture
def change_routes(buyer, provider, rival_provider, django_capture_on_commit_callbacks) -> World:
    cw = change_world(buyer, provider, django_capture_on_commit_callbacks)
    world = World()
    world.change = announce(cw, provider)
    run = upload_canary(
        world.change, provider.user, PASSING[:1], django_capture_on_commit_callbacks
    )
    world.evidence = Evidence.objects.get(run=run)
    return world


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_route_gives_each_role_what_it_may_see(name, role, change_routes, request):
    method, args, expected = ROUTES[name]
    url = reverse(name, args=args(change_routes))
    response = getattr(client_for(role, request), method)(url)
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"


@pytest.mark.parametrize("role", ["rival_provider", "outsider"])
def test_non_parties_cannot_answer_upload_or_withdraw(role, change_routes, request):
    client = client_for(role, request)
    change = change_routes.change
    answer = reverse("delivery:change-answer", args=[change.pk])
    assert client.post(answer, {"decision": "object", "reason": "Not mine"}).status_code == HIDDEN
    withdraw = reverse("delivery:canary-evidence-withdraw", args=[change_routes.evidence.pk])
    assert client.post(withdraw).status_code == HIDDEN
    change.entry.refresh_from_db()
    assert change.entry.status == ChangeStatus.PROPOSED
    change_routes.evidence.refresh_from_db()
    assert change_routes.evidence.withdrawn_at is None


def test_the_provider_cannot_answer_and_the_buyer_cannot_withdraw(change_routes, request):
    change = change_routes.change
    provider = client_for("provider", request)
    url = reverse("delivery:change-answer", args=[change.pk])
    page = provider.post(url, {"decision": "accept"}, follow=True).content.decode()
    assert "Only the buyer can do this" in page
    buyer = client_for("buyer", request)
    withdraw = reverse("delivery:canary-evidence-withdraw", args=[change_routes.evidence.pk])
    page = buyer.post(withdraw, follow=True).content.decode()
    assert "Only the provider can do this" in page
    change.entry.refresh_from_db()
    assert change.entry.status == ChangeStatus.PROPOSED
    change_routes.evidence.refresh_from_db()
    assert change_routes.evidence.withdrawn_at is None
