"""Who opens a provider's scorecard: the provider, and the buyer's members that contracted it;
the rival provider and an unrelated buyer get 404, downloads included."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests import tenancy_registry
from tests.bids.test_tenancy import LOGIN, OK, ROLES, _only, client_for
from tests.incidents.helpers import accept

pytestmark = pytest.mark.django_db

SEEN = _only({"buyer": OK, "buyer_colleague": OK, "provider": OK})
ROUTES = {
    "scorecards:provider-scorecard": SEEN,
    "scorecards:provider-scorecard-csv": SEEN,
    "scorecards:provider-scorecard-xlsx": SEEN,
}
tenancy_registry.register(*ROUTES)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_scorecard_routes_give_each_role_what_it_may_see(
    name, role, world, buyer, provider, request
):
    accept(world, buyer, provider)
    response = client_for(role, request).get(reverse(name, args=[provider.org.pk]))
    want = ROUTES[name][role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"
