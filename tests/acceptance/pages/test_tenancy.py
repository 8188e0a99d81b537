"""Who reaches the fixture pages and downloads: the buyer's organisation and invited providers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from acceptance.models import FixtureReference
from orgs.choices import OrgKind
from tests import tenancy_registry
from tests.bids.test_tenancy import LOGIN, OK, ROLES, _only, client_for
from tests.factories import MembershipFactory, OrganizationFactory, UserFactory

READERS = _only({"buyer": OK, "buyer_colleague": OK, "provider": OK, "rival_provider": OK})
BUYERS = _only({"buyer": OK, "buyer_colleague": OK})

BUYERS_FORM = _only({"buyer": 400, "buyer_colleague": 400})  # an empty form: its errors


def _reference(f: Any) -> int:
    """A stored reference run on the fixture's current version."""
    ref = FixtureReference(fixture_version=f.version, source="cpu_dry_run")
    ref.store(SimpleUploadedFile("dry-run.jsonl", b'{"rank": 0}\n'))
    ref.save()
    return ref.pk


ROUTES: dict[str, tuple[str, Callable[[Any], list[Any]], dict[str, Any]]] = {
    "acceptance:fixture-detail": ("get", lambda f: [f.request.pk], READERS),
    "acceptance:fixture-create": ("get", lambda f: [f.request.pk], BUYERS),
    "acceptance:fixture-edit": ("get", lambda f: [f.request.pk], BUYERS),
    "acceptance:fixture-json": ("get", lambda f: [f.request.pk, 1], READERS),
    "acceptance:fixture-bundle": ("get", lambda f: [f.request.pk, 1], READERS),
    "acceptance:acknowledge": ("get", lambda f: [f.bid.pk], _only({"provider": OK})),
    "acceptance:fixture-reference-upload": ("post", lambda f: [f.request.pk], BUYERS_FORM),
    "acceptance:fixture-reference-download": ("get", lambda f: [_reference(f)], READERS),
}
tenancy_registry.register(*ROUTES)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_fixture_route_gives_each_role_what_it_may_see(name, role, fx, request):
    method, args, expected = ROUTES[name]
    response = getattr(client_for(role, request), method)(reverse(name, args=args(fx)))
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"


def test_a_provider_that_is_not_invited_cannot_download(fx):
    user = UserFactory(username="ursula")
    MembershipFactory(
        user=user, organization=OrganizationFactory(name="Uninvited", kind=OrgKind.PROVIDER)
    )
    from django.test import Client

    client = Client()
    client.force_login(user)
    for name in ("acceptance:fixture-bundle", "acceptance:fixture-json"):
        assert client.get(reverse(name, args=[fx.request.pk, 1])).status_code == 404
    assert client.get(reverse("contracts:terms-detail", args=[fx.request.pk])).status_code == 404


def test_a_provider_cannot_acknowledge_for_the_rivals_bid(fx, provider):
    url = reverse("acceptance:acknowledge", args=[fx.rival_bid.pk])
    assert provider.client().post(url, {"status": "accepted"}).status_code == 404


def test_an_unknown_version_is_404(fx, buyer):
    url = reverse("acceptance:fixture-bundle", args=[fx.request.pk, 7])
    assert buyer.client().get(url).status_code == 404
