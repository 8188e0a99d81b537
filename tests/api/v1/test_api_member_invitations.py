"""Membership by invitation through the API: the pages' rules, from a script.

An organisation's administrators list, send and withdraw its invitations; the invited person
lists, accepts and declines theirs. Nothing says whether an account has the address, the person
and their current organisations' administrators are told, every answer is on the record, and an
invitation past its expiry is refused with the date it expired.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from api.services import token_create
from audit.models import AuditEntry
from notices.models import Notice
from orgs.models import InvitationState, MemberInvitation, Membership
from tests.factories import MembershipFactory, OrganizationFactory, UserFactory

pytestmark = pytest.mark.django_db

ORG_INVITATIONS = "/api/v1/members/invitations/"
MINE = "/api/v1/me/invitations/"


def _client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=user, name='script')[1]}")
    return client


def _invite(admin, email: str, role: str = "engineer"):
    return _client(admin.user).post(ORG_INVITATIONS, {"email": email, "role": role}, format="json")


def _shape(body: dict) -> dict:
    return {k: v for k, v in body.items() if k not in {"id", "email", "created_at", "expires_at"}}


def test_the_answer_is_the_same_whether_or_not_an_account_has_the_address(provider):
    UserFactory(username="alice2", email="alice2@helix.example")
    known = _invite(provider, "Alice2@Helix.example")
    unknown = _invite(provider, "nobody@nowhere.example")
    assert known.status_code == unknown.status_code == 201
    assert _shape(known.json()) == _shape(unknown.json())
    assert known.json()["email"] == "alice2@helix.example"
    assert "alice2" not in str(_shape(known.json()))
    listed = _client(provider.user).get(ORG_INVITATIONS).json()["results"]
    assert [row["email"] for row in listed] == ["nobody@nowhere.example", "alice2@helix.example"]
    assert not Membership.objects.filter(user__username="alice2").exists()


def test_an_invalid_address_or_role_is_named_on_its_field(provider):
    bad = _invite(provider, "not an address")
    assert bad.status_code == 400 and "not an e-mail address" in bad.json()["errors"]["email"][0]
    wrong_kind = _invite(provider, "x@example.com", role="requester")
    assert wrong_kind.status_code == 400
    assert "engineer, approver, admin" in wrong_kind.json()["errors"]["role"][0]


def test_only_an_administrator_manages_invitations(provider):
    engineer = MembershipFactory(organization=provider.org, role="engineer").user
    client = _client(engineer)
    assert client.get(ORG_INVITATIONS).status_code == 403
    refused = client.post(ORG_INVITATIONS, {"email": "x@example.com", "role": "engineer"})
    assert refused.status_code == 403 and "administrator" in refused.json()["detail"]
    assert not MemberInvitation.objects.exists()


def test_accepting_joins_tells_both_sides_and_is_on_the_record(
    buyer, buyer_colleague, provider, django_capture_on_commit_callbacks
):
    alice = buyer.user
    _invite(provider, alice.email.upper())
    assert (
        Notice.objects.get(recipient=alice).subject == "Northwind invites you to join as engineer"
    )
    mine = _client(alice)
    rows = mine.get(MINE).json()["results"]
    assert [(r["organization"]["slug"], r["role"], r["expired"]) for r in rows] == [
        ("northwind", "engineer", False)
    ]
    with django_capture_on_commit_callbacks(execute=True):
        joined = mine.post(f"{MINE}{rows[0]['id']}/accept/")
    assert joined.status_code == 200
    assert joined.json()["organization"]["slug"] == "northwind"
    assert joined.json()["role"] == "engineer"
    assert Membership.objects.filter(user=alice, organization=provider.org).exists()
    told = Notice.objects.get(recipient=buyer_colleague.user)
    assert told.subject == "alice, a member of Helix Labs, joined Northwind"
    assert Notice.objects.filter(recipient=provider.user, subject__contains="accepted").exists()
    entry = AuditEntry.objects.get(action="member.join")
    assert entry.actor == alice and entry.obj_key == f"org:{provider.org.pk}"
    # Answered: it is no longer open, to accept again or to list.
    assert mine.post(f"{MINE}{rows[0]['id']}/accept/").status_code == 404
    assert mine.get(MINE).json()["results"] == []


def test_an_expired_invitation_is_refused_with_its_date(buyer, provider, settings):
    settings.MEMBER_INVITATION_DAYS = 3
    _invite(provider, buyer.user.email)
    invitation = MemberInvitation.objects.get()
    assert timedelta(days=2, hours=23) < invitation.expires_at - timezone.now() <= timedelta(days=3)
    past = timezone.now() - timedelta(minutes=1)
    MemberInvitation.objects.filter(pk=invitation.pk).update(expires_at=past)
    mine = _client(buyer.user)
    assert mine.get(MINE).json()["results"][0]["expired"] is True
    refused = mine.post(f"{MINE}{invitation.pk}/accept/")
    assert refused.status_code == 409
    assert refused.json()["detail"] == (
        f"This invitation to Northwind expired on {past:%Y-%m-%d %H:%M} UTC. Ask an "
        "administrator of Northwind to invite you again."
    )
    assert not Membership.objects.filter(user=buyer.user, organization=provider.org).exists()
    assert not AuditEntry.objects.filter(action="member.join").exists()


def test_inviting_again_replaces_an_expired_invitation(buyer, provider):
    _invite(provider, buyer.user.email)
    first = MemberInvitation.objects.get()
    assert _invite(provider, buyer.user.email).status_code == 400  # still open: one at a time
    MemberInvitation.objects.filter(pk=first.pk).update(expires_at=timezone.now())
    again = _invite(provider, buyer.user.email, role="approver")
    assert again.status_code == 201 and again.json()["expired"] is False
    first.refresh_from_db()
    assert first.state == InvitationState.EXPIRED
    entry = AuditEntry.objects.filter(action="member.invite").latest("pk")
    assert entry.before == {"expired": [first.pk]} and entry.after["role"] == "approver"


def test_declining_closes_it_on_the_record_and_nobody_joins(buyer, provider):
    _invite(provider, buyer.user.email)
    invitation = MemberInvitation.objects.get()
    assert _client(buyer.user).post(f"{MINE}{invitation.pk}/decline/").status_code == 204
    invitation.refresh_from_db()
    assert invitation.state == InvitationState.DECLINED
    assert AuditEntry.objects.filter(action="member.decline").count() == 1
    assert not Membership.objects.filter(user=buyer.user, organization=provider.org).exists()


def test_an_administrator_withdraws_and_no_one_else_can(buyer, provider, rival_provider):
    _invite(provider, buyer.user.email)
    invitation = MemberInvitation.objects.get()
    url = f"{ORG_INVITATIONS}{invitation.pk}/"
    assert _client(rival_provider.user).delete(url).status_code == 404
    assert _client(buyer.user).delete(url).status_code == 404  # the invitee does not withdraw
    invitation.refresh_from_db()
    assert invitation.state == InvitationState.PENDING
    assert _client(provider.user).delete(url).status_code == 204
    assert AuditEntry.objects.filter(action="member.withdraw").count() == 1
    assert _client(buyer.user).post(f"{MINE}{invitation.pk}/accept/").status_code == 404
    assert _client(provider.user).get(ORG_INVITATIONS).json()["results"] == []


def test_someone_else_cannot_see_or_answer_it(buyer, provider, outsider):
    _invite(provider, buyer.user.email)
    invitation = MemberInvitation.objects.get()
    other = _client(outsider.user)
    assert other.get(MINE).json()["results"] == []
    assert other.post(f"{MINE}{invitation.pk}/accept/").status_code == 404
    assert other.post(f"{MINE}{invitation.pk}/decline/").status_code == 404
    invitation.refresh_from_db()
    assert invitation.state == InvitationState.PENDING


def _queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_the_lists_cost_the_same_queries_for_many_invitations(buyer, provider, rival_provider):
    _invite(provider, buyer.user.email)
    _invite(rival_provider, buyer.user.email)
    admin, invitee = _client(provider.user), _client(buyer.user)
    _queries(admin, ORG_INVITATIONS), _queries(invitee, MINE)  # a token's first use is noted
    few = (_queries(admin, ORG_INVITATIONS), _queries(invitee, MINE))
    for n in range(10):
        _invite(provider, f"person{n}@example.com")
        MembershipFactory(organization=OrganizationFactory(kind="provider"), role="admin")
    third = MemberInvitation.objects.create(
        organization=OrganizationFactory(kind="buyer"), email=buyer.user.email, role="admin"
    )
    assert third.invited_by is None
    assert (_queries(admin, ORG_INVITATIONS), _queries(invitee, MINE)) == few
