"""Who reaches the handoff-terms pages: the buyer's organisation, and invited providers read."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests import tenancy_registry
from tests.bids.test_tenancy import LOGIN, OK, ROLES, _only, client_for

READERS = _only({"buyer": OK, "buyer_colleague": OK, "provider": OK, "rival_provider": OK})
BUYERS = _only({"buyer": OK, "buyer_colleague": OK})

ROUTES = {
    "contracts:terms-detail": ("get", READERS),
    "contracts:terms-create": ("get", BUYERS),
    "contracts:terms-edit": ("get", BUYERS),
}
tenancy_registry.register(*ROUTES)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_terms_route_gives_each_role_what_it_may_see(name, role, fx, request):
    method, expected = ROUTES[name]
    response = getattr(client_for(role, request), method)(reverse(name, args=[fx.request.pk]))
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"


def test_providers_cannot_post_terms_edits(fx, provider):
    url = reverse("contracts:terms-edit", args=[fx.request.pk])
    assert provider.client().post(url, {"s1_response_minutes": 1}).status_code == 404
