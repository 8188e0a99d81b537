"""Who reaches the Observed page and its files: the buyer's members and the awarded provider;
the rival provider, the rival buyer (`outsider`) and anonymous users get 404 or the login page,
the file download included, and cannot upload, retry or name the result."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

from observed.models import ObservedUpload, ResultDefinition
from tests import tenancy_registry
from tests.bids.test_tenancy import HIDDEN, LOGIN, OK, REDIRECT, ROLES, _only, client_for
from tests.incidents.helpers import media_root
from tests.observed.helpers import data_file, worked_reservation

__all__ = ["media_root"]

pytestmark = pytest.mark.django_db

PARTIES_GET = _only({"buyer": OK, "buyer_colleague": OK, "provider": OK})
# The parties are sent back to the page (a done file has nothing to retry; the provider may not
# name the result): the page says why.
PARTIES_POST = _only({"buyer": REDIRECT, "buyer_colleague": REDIRECT, "provider": REDIRECT})

ROUTES: dict[str, tuple[str, Callable[[Any], list[Any]], dict[str, Any]]] = {
    "observed:page": ("get", lambda w: [w.reservation.pk], PARTIES_GET),
    "observed:file": ("get", lambda w: [w.upload.pk], PARTIES_GET),
    "observed:retry": ("post", lambda w: [w.upload.pk], PARTIES_POST),
    "observed:result": ("post", lambda w: [w.reservation.pk], PARTIES_POST),
}
tenancy_registry.register(*ROUTES)


class World:
    reservation: Any
    upload: Any


@pytest.fixture
def tenancy_world(buyer, provider, media_root, django_capture_on_commit_callbacks) -> World:
    from observed import services

    world = World()
    world.reservation = worked_reservation(buyer, provider)
    with django_capture_on_commit_callbacks(execute=True):
        world.upload = services.observed_upload(
            reservation=world.reservation, user=provider.user, kind="results",
            upload=data_file("results.csv"),
        )  # fmt: skip
    return world


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_route_gives_each_role_what_it_may_see(name, role, tenancy_world, request):
    method, args, expected = ROUTES[name]
    response = getattr(client_for(role, request), method)(reverse(name, args=args(tenancy_world)))
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"


@pytest.mark.parametrize("role", ["rival_provider", "outsider"])
def test_non_parties_cannot_upload_or_name_the_result(role, tenancy_world, request):
    client = client_for(role, request)
    url = reverse("observed:page", args=[tenancy_world.reservation.pk])
    posted = client.post(url, {"kind": "results", "file": data_file("results.csv")})
    assert posted.status_code == HIDDEN
    url = reverse("observed:result", args=[tenancy_world.reservation.pk])
    assert client.post(url, {"unit": "step"}).status_code == HIDDEN
    assert ObservedUpload.objects.count() == 1 and not ResultDefinition.objects.exists()


@pytest.mark.parametrize("role", ["rival_provider", "outsider"])
def test_the_reservation_page_link_is_only_for_the_parties(role, tenancy_world, request):
    page = reverse("burnin:reservation-detail", args=[tenancy_world.reservation.pk])
    link = reverse("observed:page", args=[tenancy_world.reservation.pk])
    assert link in client_for("buyer", request).get(page).content.decode()
    assert client_for(role, request).get(page).status_code == HIDDEN
