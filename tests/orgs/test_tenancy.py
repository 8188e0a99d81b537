"""Who reaches the members pages: every member of the acting organisation reads its own list;
changes act on the acting organisation only, so another organisation's membership id (even to
that organisation's administrator acting elsewhere) is a 404."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from orgs.models import MemberInvitation, Membership
from orgs.services import invitation_send
from tests import tenancy_registry
from tests.bids.test_tenancy import LOGIN, OK, REDIRECT, ROLES, _only, client_for
from tests.factories import UserFactory

EVERY_MEMBER = {**dict.fromkeys(ROLES, OK), "anonymous": LOGIN}
HELIX_ADMINS = _only({"buyer": REDIRECT, "buyer_colleague": REDIRECT})

# name -> (method, POST data, expected per role); the object is bob's membership of Helix Labs.
ROUTES = {
    "orgs:members": ("get", None, EVERY_MEMBER),
    "orgs:member-role": ("post", {"role": "approver"}, HELIX_ADMINS),
    "orgs:member-remove": ("post", {}, HELIX_ADMINS),
}
tenancy_registry.register(*ROUTES)

# The object is Helix Labs' open invitation to carol, who holds none of the roles: only Helix
# Labs' administrators withdraw it, only carol answers it, and everyone reads their own list.
INVITATION_ROUTES: dict[str, tuple[str, dict[str, str] | None, dict[str, Any]]] = {
    "orgs:invitations": ("get", None, EVERY_MEMBER),
    "orgs:invitation-withdraw": ("post", {}, HELIX_ADMINS),
    "orgs:invitation-accept": ("post", {}, _only({})),
    "orgs:invitation-decline": ("post", {}, _only({})),
}
tenancy_registry.register(*INVITATION_ROUTES)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(INVITATION_ROUTES))
def test_invitation_route_gives_each_role_what_it_may_see(
    name, role, buyer, buyer_colleague, request
):
    carol = UserFactory(username="carol", email="carol@example.com")
    invitation = invitation_send(org=buyer.org, user=buyer.user, email=carol.email, role="approver")
    method, data, expected = INVITATION_ROUTES[name]
    args = [] if name == "orgs:invitations" else [invitation.pk]
    response = getattr(client_for(role, request), method)(reverse(name, args=args), data)
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"
    if role != "anonymous" and name == "orgs:invitations":
        assert "Helix Labs" not in response.content.decode().split('id="invitations"')[1]
    assert not Membership.objects.filter(user=carol).exists()


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_members_route_gives_each_role_what_it_may_see(name, role, buyer, buyer_colleague, request):
    method, data, expected = ROUTES[name]
    bob = Membership.objects.get(user=buyer_colleague.user)
    args = [] if name == "orgs:members" else [bob.pk]
    response = getattr(client_for(role, request), method)(reverse(name, args=args), data)
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"


def test_each_organisation_lists_only_its_own_members(buyer, buyer_colleague, provider, outsider):
    html = provider.client().get(reverse("orgs:members")).content.decode()
    assert "nora" in html and "alice" not in html and "bob" not in html
    html = outsider.client().get(reverse("orgs:members")).content.decode()
    assert "oscar" in html and "alice" not in html


def test_an_admin_of_another_organisation_cannot_invite_to_this_one(buyer, provider):
    """The page always acts on the acting organisation: nothing in the form names another."""
    provider.client().post(
        reverse("orgs:members"),
        {"email": "nora@example.com", "role": "admin", "organization": buyer.org.pk},
    )
    assert not MemberInvitation.objects.filter(organization=buyer.org).exists()
    assert not Membership.objects.filter(user=provider.user, organization=buyer.org).exists()


def test_a_forged_membership_id_changes_nothing(buyer, provider):
    alice = Membership.objects.get(user=buyer.user)
    client = provider.client()
    role_url = reverse("orgs:member-role", args=[alice.pk])
    assert client.post(role_url, {"role": "requester"}).status_code == 404
    assert client.post(reverse("orgs:member-remove", args=[alice.pk])).status_code == 404
    assert Membership.objects.get(pk=alice.pk).role == "admin"


def test_a_member_of_both_acts_on_the_organisation_chosen(buyer, provider):
    """Nora, admin of Northwind, also a member of Helix Labs: acting for Northwind she cannot
    reach Helix's memberships, even as an admin there, until she switches."""
    Membership.objects.create(user=provider.user, organization=buyer.org, role="admin")
    client = provider.client()
    client.post(reverse("orgs:switch-org"), {"organization": provider.org.pk})
    alice = Membership.objects.get(user=buyer.user)
    url = reverse("orgs:member-role", args=[alice.pk])
    assert client.post(url, {"role": "approver"}).status_code == 404
    client.post(reverse("orgs:switch-org"), {"organization": buyer.org.pk})
    assert client.post(url, {"role": "approver"}).status_code == 302
    assert Membership.objects.get(pk=alice.pk).role == "approver"
