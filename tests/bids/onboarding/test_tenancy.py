"""Who reaches the gate's and the onboarding's pages. The object is a published request of
Helix Labs with an NDA file, to which Northwind (`provider`) alone is invited; Northwind has
filed an ISO 27001. The join page answers whoever holds the link: the link is the key."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from bids.choices import RequestStatus
from bids.services import gate_set, request_publish, supplier_invite
from bids.services.onboarding import token_for
from tests import tenancy_registry
from tests.bids.onboarding.helpers import file_iso27001
from tests.bids.test_tenancy import (
    BUYERS_ONLY,
    BUYERS_POST,
    LOGIN,
    OK,
    REDIRECT,
    ROLES,
    _only,
    client_for,
)
from tests.factories import CapacityRequestFactory, InvitationFactory

pytestmark = pytest.mark.django_db


def _gated(buyer: Any, provider: Any) -> Any:
    req = CapacityRequestFactory(buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None)
    InvitationFactory(request=req, provider=provider.org)
    gate_set(
        capacity_request=req,
        user=buyer.user,
        nda_text="Confidential.",
        nda_file=SimpleUploadedFile("nda.txt", b"Mutual NDA, three years.\n"),
        required_documents=["iso27001"],
    )
    request_publish(capacity_request=req, user=buyer.user)
    return req


# name -> (method, args from (request, document, join token), expected per role)
ROUTES: dict[str, tuple[str, Any, dict[str, Any]]] = {
    "bids:gate-edit": ("get", lambda r, d, t: [r.pk], BUYERS_ONLY),
    "bids:gate-accept": ("post", lambda r, d, t: [r.pk], _only({"provider": REDIRECT})),
    "bids:gate-nda": (
        "get",
        lambda r, d, t: [r.pk],
        _only({"buyer": OK, "buyer_colleague": OK, "provider": OK}),
    ),
    # An empty post: back to the request, told what is missing.
    "bids:supplier-invite": ("post", lambda r, d, t: [r.pk], BUYERS_POST),
    "bids:supplier-join": ("get", lambda r, d, t: [t], dict.fromkeys(ROLES, OK)),
    "bids:supplier-profile": ("get", lambda r, d, t: [r.pk, d.organization_id], BUYERS_ONLY),
    "bids:supplier-document": (
        "get",
        lambda r, d, t: [r.pk, d.organization_id, d.pk],
        BUYERS_ONLY,
    ),
}
tenancy_registry.register(*ROUTES)


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_route_gives_each_role_what_it_may_see(
    name, role, buyer, buyer_colleague, provider, rival_provider, outsider, request
):
    req = _gated(buyer, provider)
    document = file_iso27001(provider)
    token = token_for(supplier_invite(capacity_request=req, user=buyer.user, email="n@e.example"))
    method, args, expected = ROUTES[name]
    response = getattr(client_for(role, request), method)(
        reverse(name, args=args(req, document, token))
    )
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"


def test_a_buyer_reads_no_profile_of_a_provider_it_did_not_invite(buyer, provider, rival_provider):
    req = _gated(buyer, provider)
    document = file_iso27001(rival_provider)
    client = buyer.client()
    for name, args in [
        ("bids:supplier-profile", [req.pk, rival_provider.org.pk]),
        ("bids:supplier-document", [req.pk, rival_provider.org.pk, document.pk]),
        ("bids:supplier-document", [req.pk, provider.org.pk, document.pk]),
    ]:
        assert client.get(reverse(name, args=args)).status_code == 404, name


def test_another_buyer_reads_no_profile_through_its_own_request(buyer, outsider, provider):
    _gated(buyer, provider)
    own = CapacityRequestFactory(buyer=outsider.org)
    response = outsider.client().get(
        reverse("bids:supplier-profile", args=[own.pk, provider.org.pk])
    )
    assert response.status_code == 404
