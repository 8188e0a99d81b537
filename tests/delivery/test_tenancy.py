"""Who reaches the delivery routes: the buyer's members and the awarded provider; the rival
provider, an outsider (another buyer) and anonymous visitors do not, downloads included."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

from delivery import services
from delivery.models import MaintenanceWindow
from tests import tenancy_registry
from tests.bids.test_tenancy import HIDDEN, LOGIN, OK, REDIRECT, ROLES, _only, client_for
from tests.delivery.helpers import example_reservation, utc

pytestmark = pytest.mark.django_db

PARTIES_GET = _only({"buyer": OK, "buyer_colleague": OK, "provider": OK})
PARTIES_POST = _only({"buyer": REDIRECT, "buyer_colleague": REDIRECT, "provider": REDIRECT})

ROUTES: dict[str, tuple[str, Callable[[Any], list[Any]], dict[str, Any]]] = {
    # An empty form comes back with its errors for the provider; the buyer is refused by role
    # (flashed on the reservation page).
    "delivery:maintenance-new": (
        "post",
        lambda w: [w.reservation.pk],
        _only({"buyer": REDIRECT, "buyer_colleague": REDIRECT, "provider": OK}),
    ),
    "delivery:maintenance-agree": ("post", lambda w: [w.window.pk], PARTIES_POST),
    "delivery:availability-csv": ("get", lambda w: [w.reservation.pk], PARTIES_GET),
    "delivery:availability-xlsx": ("get", lambda w: [w.reservation.pk], PARTIES_GET),
}
tenancy_registry.register(*ROUTES)


class World:
    reservation: Any
    window: MaintenanceWindow


@pytest.fixture
def delivery_world(buyer, provider, rival_provider, media_root) -> World:
    world = World()
    world.reservation = example_reservation(buyer, provider)
    world.window = services.maintenance_announce(
        reservation=world.reservation, user=provider.user, starts_at=utc(3, 15, 2),
        ends_at=utc(3, 15, 6), reason="Firmware", now=utc(3, 14, 10),
    )  # fmt: skip
    return world


@pytest.fixture
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_route_gives_each_role_what_it_may_see(name, role, delivery_world, request):
    method, args, expected = ROUTES[name]
    url = reverse(name, args=args(delivery_world))
    response = getattr(client_for(role, request), method)(url)
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"


@pytest.mark.parametrize("role", ["rival_provider", "outsider"])
def test_non_parties_cannot_announce_or_agree(role, delivery_world, request):
    client = client_for(role, request)
    url = reverse("delivery:maintenance-new", args=[delivery_world.reservation.pk])
    response = client.post(url, {"starts_at": "2026-03-20 02:00", "ends_at": "2026-03-20 04:00",
                                 "reason": "Not mine"})  # fmt: skip
    assert response.status_code == HIDDEN
    agree = reverse("delivery:maintenance-agree", args=[delivery_world.window.pk])
    assert client.post(agree).status_code == HIDDEN
    assert MaintenanceWindow.objects.count() == 1
    assert MaintenanceWindow.objects.get().agreed_at is None


def test_only_the_parties_see_the_delivery_panel(delivery_world, request):
    url = reverse("burnin:reservation-detail", args=[delivery_world.reservation.pk])
    for role in ("buyer", "provider"):
        html = client_for(role, request).get(url).content.decode()
        assert 'id="delivery"' in html and "Firmware" in html
    for role in ("rival_provider", "outsider"):
        assert client_for(role, request).get(url).status_code == HIDDEN
