"""Who reaches the signing identity pages: each member reads the identity of the organisation
they act for; only its administrators change it; no page names another organisation's."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from signing.selectors import identity_current
from signing.services import identity_trial
from tests import tenancy_registry
from tests.bids.test_tenancy import LOGIN, OK, REDIRECT, ROLES, client_for

EVERY_MEMBER = {**dict.fromkeys(ROLES, OK), "anonymous": LOGIN}
# Every named role administers its own organisation; an upload without a file is a 400 naming it.
ROUTES: dict[str, tuple[str, dict[str, str] | None, dict[str, Any]]] = {
    "signing:identity": ("get", None, EVERY_MEMBER),
    "signing:identity-upload": ("post", {}, {**dict.fromkeys(ROLES, 400), "anonymous": LOGIN}),
    "signing:identity-trial": ("post", {}, {**dict.fromkeys(ROLES, REDIRECT), "anonymous": LOGIN}),
}
tenancy_registry.register(*ROUTES)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_signing_route_per_role(name, role, buyer, buyer_colleague, request):
    method, data, expected = ROUTES[name]
    response = getattr(client_for(role, request), method)(reverse(name), data)
    if expected[role] == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == expected[role], f"{name} as {role}"


def test_each_organisation_sees_and_sets_only_its_own(buyer, provider, rival_provider):
    helix = identity_trial(org=buyer.org, user=buyer.user)
    page = rival_provider.client().get(reverse("signing:identity")).content.decode()
    assert helix.subject not in page and 'id="identity-none"' in page
    rival_provider.client().post(reverse("signing:identity-trial"))
    assert identity_current(org=buyer.org) == helix
    assert identity_current(org=rival_provider.org).organization_id == rival_provider.org.pk
    assert identity_current(org=provider.org) is None
