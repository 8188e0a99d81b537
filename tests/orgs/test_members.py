"""The members page: everyone in the organisation reads it; only its administrators invite,
change roles (the kind's roles only) and remove members, never the last administrator, and each
change goes on the organisation's own audit record."""

from __future__ import annotations

from html import unescape

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from audit.models import AuditEntry
from audit.selectors import entries_for
from orgs.choices import MemberRole
from orgs.models import MemberInvitation, Membership
from orgs.services import member_set_role
from tests.factories import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db

MEMBERS = reverse("orgs:members")


def _text(response):
    """The page as its reader sees it (apostrophes unescaped)."""
    return unescape(response.content.decode())


def _membership(role):
    return Membership.objects.get(user=role.user, organization=role.org)


def _role_url(membership):
    return reverse("orgs:member-role", args=[membership.pk])


def _remove_url(membership):
    return reverse("orgs:member-remove", args=[membership.pk])


def test_every_member_reads_name_email_role_and_since(buyer, buyer_colleague):
    MembershipFactory(
        organization=buyer.org,
        user=UserFactory(username="rory", first_name="Rory", last_name="Quinn"),
        role=MemberRole.REQUESTER,
    )
    html = buyer.client().get(MEMBERS).content.decode()
    assert "Members of Helix Labs" in html and "3 members" in html
    assert "Rory Quinn" in html and "rory@example.com" in html
    assert "bob@example.com" in html
    assert _membership(buyer).created_at.strftime("%Y") in html


def test_an_invalid_address_is_named_on_the_field_and_the_form_keeps_it(buyer):
    response = buyer.client().post(MEMBERS, {"email": "nobody-at-nowhere", "role": "approver"})
    html = _text(response)
    assert response.status_code == 200
    assert "“nobody-at-nowhere” is not an e-mail address" in html
    assert 'value="nobody-at-nowhere"' in html
    assert '<option value="approver" selected>' in html
    assert not AuditEntry.objects.exists()


def test_the_roles_offered_are_the_organisations_kinds(buyer, provider):
    buyer_page = buyer.client().get(MEMBERS).content.decode()
    assert 'value="requester"' in buyer_page and 'value="engineer"' not in buyer_page
    provider_page = provider.client().get(MEMBERS).content.decode()
    assert 'value="engineer"' in provider_page and 'value="requester"' not in provider_page


def test_a_role_of_the_other_kind_is_refused(buyer, buyer_colleague):
    client = buyer.client()
    response = client.post(MEMBERS, {"email": "eve@example.com", "role": "engineer"})
    assert "A buyer organisation's roles are: requester, approver, administrator." in _text(
        response
    )
    page = client.post(_role_url(_membership(buyer_colleague)), {"role": "engineer"}, follow=True)
    assert "roles are: requester, approver, administrator" in _text(page)
    assert _membership(buyer_colleague).role == MemberRole.ADMIN
    assert not MemberInvitation.objects.exists()


def test_an_admin_changes_a_role_on_the_record(buyer, buyer_colleague):
    bob = _membership(buyer_colleague)
    page = buyer.client().post(_role_url(bob), {"role": "approver"}, follow=True)
    assert "bob is now approver." in page.content.decode()
    assert _membership(buyer_colleague).role == MemberRole.APPROVER
    entry = AuditEntry.objects.get(action="member.role")
    assert (entry.before, entry.after) == (
        {"member": "bob", "role": "admin"},
        {"member": "bob", "role": "approver"},
    )


def test_an_admin_removes_a_member_on_the_record(buyer, buyer_colleague):
    page = buyer.client().post(_remove_url(_membership(buyer_colleague)), follow=True)
    assert "bob is no longer a member of Helix Labs." in page.content.decode()
    assert not Membership.objects.filter(user=buyer_colleague.user).exists()
    entry = AuditEntry.objects.get(action="member.remove")
    assert (entry.before, entry.after) == ({"member": "bob", "role": "admin"}, {})


def test_the_record_is_the_organisations_alone(buyer, buyer_colleague, provider):
    buyer.client().post(_role_url(_membership(buyer_colleague)), {"role": "requester"})
    key = f"org:{buyer.org.pk}"
    assert [e.action for e in entries_for(org=buyer.org, obj_key=key)] == ["member.role"]
    assert not entries_for(org=provider.org, obj_key=key).exists()
    # The page's history panel shows it to the members.
    html = buyer.client().get(MEMBERS).content.decode()
    assert "member.role" in html


@pytest.mark.parametrize("role", ["requester", "approver"])
def test_buyer_members_who_are_not_admin_cannot_change_anything(role, buyer, buyer_colleague):
    _assert_read_only(_demote(buyer_colleague, role), other=_membership(buyer), org_name="Helix")


@pytest.mark.parametrize("role", ["engineer", "approver"])
def test_provider_members_who_are_not_admin_cannot_change_anything(role, provider):
    colleague = MembershipFactory(organization=provider.org, role=role)
    _assert_read_only(colleague, other=_membership(provider), org_name="Northwind")


def _demote(role_fixture, role):
    membership = _membership(role_fixture)
    membership.role = role
    membership.save()
    return membership


def _assert_read_only(member, *, other, org_name):
    from django.test import Client

    client = Client()
    client.force_login(member.user)
    page = client.get(MEMBERS).content.decode()
    assert 'id="members-read-only"' in page and other.user.get_username() in page
    assert 'id="invite-member"' not in page and "Remove</button>" not in page
    UserFactory(username="mallory")
    before = sorted(Membership.objects.values_list("pk", "role"))
    for url, data in [
        (MEMBERS, {"email": "mallory@example.com", "role": "admin"}),
        (MEMBERS, {}),
        (_role_url(member), {"role": "admin"}),
        (_role_url(other), {"role": other.role}),
        (_role_url(other), {"role": "nonsense"}),
        (_remove_url(other), {}),
    ]:
        response = client.post(url, data)
        assert response.status_code == 403, url
        assert f"Only an administrator of {org_name}" in response.content.decode()
    assert sorted(Membership.objects.values_list("pk", "role")) == before
    assert not MemberInvitation.objects.exists()
    assert not AuditEntry.objects.exists()


def test_the_service_refuses_a_non_admin_too(buyer, buyer_colleague):
    bob = _demote(buyer_colleague, "approver")
    with pytest.raises(PermissionDenied):
        member_set_role(membership=_membership(buyer), user=bob.user, role="requester")


def test_the_last_admin_can_be_neither_demoted_nor_removed(buyer):
    client = buyer.client()
    alice = _membership(buyer)
    page = client.post(_role_url(alice), {"role": "approver"}, follow=True).content.decode()
    assert "alice is the last administrator of Helix Labs" in page
    page = client.post(_remove_url(alice), follow=True).content.decode()
    assert "make another member administrator first, then remove alice" in page
    assert _membership(buyer).role == MemberRole.ADMIN
    assert not AuditEntry.objects.exists()


def test_an_admin_may_step_down_while_another_remains(buyer, buyer_colleague):
    client = buyer.client()
    client.post(_role_url(_membership(buyer)), {"role": "requester"})
    assert _membership(buyer).role == MemberRole.REQUESTER
    # Now bob is the last one: alice can no longer change anything, bob cannot step down.
    assert client.post(_remove_url(_membership(buyer_colleague))).status_code == 403
    bob = buyer_colleague.client()
    page = bob.post(_role_url(_membership(buyer_colleague)), {"role": "approver"}, follow=True)
    assert "bob is the last administrator" in page.content.decode()


def test_removing_yourself_lands_on_the_start_page(buyer, buyer_colleague):
    response = buyer_colleague.client().post(_remove_url(_membership(buyer_colleague)))
    assert response.status_code == 302 and response["Location"] == reverse("home")


def test_the_header_links_to_the_members_page(buyer):
    html = buyer.client().get(reverse("bids:request-list")).content.decode()
    assert f'href="{MEMBERS}"' in html


def test_the_page_costs_the_same_queries_for_many_members(buyer, django_assert_num_queries):
    client = buyer.client()
    client.get(MEMBERS)  # warm the session
    with django_assert_num_queries(_count(client)) as few:
        client.get(MEMBERS)
    for _ in range(20):
        MembershipFactory(organization=buyer.org, role=MemberRole.REQUESTER)
    with django_assert_num_queries(len(few.captured_queries)):
        client.get(MEMBERS)


def _count(client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        client.get(MEMBERS)
    return len(ctx.captured_queries)
