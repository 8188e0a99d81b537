"""Who reaches a lot's own fixture and terms: the buyer's organisation and invited providers
read them; only the buyer's team chooses and edits; only the bid's provider acknowledges."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

from acceptance.models import Fixture, FixtureVersion
from contracts.models import HandoffTerms
from engine.evidence.fixtures import default_spec, spec_sha256
from tests import tenancy_registry
from tests.bids.test_tenancy import LOGIN, OK, REDIRECT, ROLES, _only, client_for
from tests.factories import LotFactory

READERS = _only({"buyer": OK, "buyer_colleague": OK, "provider": OK, "rival_provider": OK})
BUYERS = _only({"buyer": OK, "buyer_colleague": OK})
BUYERS_POST = _only({"buyer": REDIRECT, "buyer_colleague": REDIRECT})


def _req(w: Any) -> list[Any]:
    return [w.request.pk, 1]


ROUTES: dict[str, tuple[str, Callable[[Any], list[Any]], dict[str, Any]]] = {
    "acceptance:lot-parts": ("get", _req, READERS),
    "acceptance:lot-fixture-own": ("post", _req, BUYERS_POST),
    "acceptance:lot-fixture-share": ("post", _req, BUYERS_POST),
    "acceptance:lot-fixture-edit": ("get", _req, BUYERS),
    "acceptance:lot-fixture-json": ("get", lambda w: [w.request.pk, 1, 1], READERS),
    "acceptance:lot-fixture-bundle": ("get", lambda w: [w.request.pk, 1, 1], READERS),
    "acceptance:lot-acknowledge": ("get", lambda w: [w.bid.pk, 1], _only({"provider": OK})),
    "contracts:lot-terms-own": ("post", _req, BUYERS_POST),
    "contracts:lot-terms-share": ("post", _req, BUYERS_POST),
    "contracts:lot-terms-edit": ("get", _req, BUYERS),
}
tenancy_registry.register(*ROUTES)


@pytest.fixture
def lotted(world):
    """The world's open request with lot 1 carrying its own fixture and terms (given while
    it was a draft)."""
    lot = LotFactory(request=world.request, number=1, nodes=2, gpus_per_node=8)
    spec = default_spec(gpu_model="H200", nodes=2, gpus_per_node=8)
    fixture = Fixture.objects.create(lot=lot)
    FixtureVersion.objects.create(
        fixture=fixture,
        number=1,
        template=spec["template"],
        spec=spec,
        spec_sha256=spec_sha256(spec),
        manifest={},
    )
    HandoffTerms.objects.create(lot=lot, buyer_owner_name="Ada", buyer_owner_contact="a@x.io")
    return world


@pytest.mark.django_db
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_lot_part_route_gives_each_role_what_it_may_see(name, role, lotted, request):
    method, args, expected = ROUTES[name]
    response = getattr(client_for(role, request), method)(reverse(name, args=args(lotted)))
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"


@pytest.mark.django_db
def test_a_provider_cannot_acknowledge_a_lot_for_the_rivals_bid(lotted, provider):
    url = reverse("acceptance:lot-acknowledge", args=[lotted.rival_bid.pk, 1])
    assert provider.client().post(url, {"status": "accepted"}).status_code == 404
