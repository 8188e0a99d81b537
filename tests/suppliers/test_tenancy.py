"""Who reaches a provider's own supplier profile pages: its members; buyers read a profile
only through a request they invited the provider to (tests/bids/onboarding/test_tenancy.py).
The object is Northwind's filed ISO 27001."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from tests import tenancy_registry
from tests.bids.onboarding.helpers import file_iso27001
from tests.bids.test_tenancy import LOGIN, OK, REDIRECT, ROLES, _only, client_for

PROVIDERS = _only({"provider": OK, "rival_provider": OK})

# name -> (method, needs the document, expected per role). An empty post to document-add is
# the page again naming the missing fields, for either provider's own profile.
ROUTES: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "suppliers:profile": ("get", False, PROVIDERS),
    "suppliers:document-add": ("post", False, PROVIDERS),
    "suppliers:document-download": ("get", True, _only({"provider": OK})),
    "suppliers:document-remove": ("post", True, _only({"provider": REDIRECT})),
}
tenancy_registry.register(*ROUTES)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_route_gives_each_role_what_it_may_see(
    name, role, buyer, buyer_colleague, provider, rival_provider, outsider, request
):
    document = file_iso27001(provider)
    method, needs_document, expected = ROUTES[name]
    args = [document.pk] if needs_document else []
    response = getattr(client_for(role, request), method)(reverse(name, args=args))
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"


def test_a_rival_sees_none_of_the_documents_on_its_own_profile(provider, rival_provider):
    file_iso27001(provider)
    html = rival_provider.client().get(reverse("suppliers:profile")).content.decode()
    assert "iso27001.pdf" not in html and "No compliance documents filed." in html
