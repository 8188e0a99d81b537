"""Membership by invitation: an administrator invites an e-mail address; the person with that
address accepts or declines while signed in. Until then the organisation sees nothing of theirs,
the administrator's words never say whether an account exists, the person and their current
organisations' administrators are told, and where the person acts by default never moves by
itself."""

from __future__ import annotations

from datetime import timedelta
from html import unescape

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from api.services import token_create
from audit.models import AuditEntry
from notices.models import Notice
from orgs.choices import MemberRole, OrgKind
from orgs.models import MemberInvitation, Membership
from tests.factories import PASSWORD, MembershipFactory, OrganizationFactory, UserFactory

pytestmark = pytest.mark.django_db

MEMBERS = reverse("orgs:members")
INVITATIONS = reverse("orgs:invitations")


def _text(response) -> str:
    return unescape(response.content.decode())


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _invite(admin, email: str, role: str = "engineer"):
    return admin.client().post(MEMBERS, {"email": email, "role": role}, follow=True)


def _told(page: str) -> str:
    return page.split('class="messages"')[1].split("</ul>")[0] if 'class="messages"' in page else ""


def test_the_admin_is_told_the_same_whether_or_not_an_account_has_the_address(provider):
    UserFactory(username="alice2", email="alice2@helix.example")
    known = _text(_invite(provider, "alice2@helix.example"))
    unknown = _text(_invite(provider, "nobody@nowhere.example"))
    said = "(engineer) recorded. If an account uses this address, its owner is told and joins"
    assert said in known and said in unknown
    assert _told(known).replace("alice2@helix.example", "X") == _told(unknown).replace(
        "nobody@nowhere.example", "X"
    )
    # Nothing of the account reaches the inviting organisation: not its username, not a name.
    assert "alice2" not in known.replace("alice2@helix.example", "")
    assert not Membership.objects.filter(user__username="alice2").exists()


def test_nobody_joins_until_they_accept_and_the_org_sees_nothing_of_theirs(buyer, provider):
    """The issue's case: a provider invites the buyer's user."""
    alice = buyer.user
    alice.first_name, alice.last_name = "Alice", "Archer"
    alice.save()
    _invite(provider, alice.email.upper())
    assert not Membership.objects.filter(user=alice, organization=provider.org).exists()
    page = _text(provider.client().get(MEMBERS))
    assert "Alice Archer" not in page and ">alice<" not in page and "(alice)" not in page
    # She is told, in the app and by e-mail, and sees it on her invitations page.
    notice = Notice.objects.get(recipient=alice, event="membership")
    assert notice.subject == "Northwind invites you to join as engineer"
    invitations = _text(_signed_in(alice).get(INVITATIONS))
    assert "Northwind" in invitations and "Engineer" in invitations


def test_accepting_joins_tells_her_admins_and_leaves_her_default_alone(
    buyer, buyer_colleague, provider, django_capture_on_commit_callbacks
):
    alice = buyer.user
    invitation = _invite(provider, alice.email) and MemberInvitation.objects.get()
    client = _signed_in(alice)
    with django_capture_on_commit_callbacks(execute=True):
        page = _text(
            client.post(reverse("orgs:invitation-accept", args=[invitation.pk]), follow=True)
        )
    assert "You are now a member of Northwind (engineer)." in page
    membership = Membership.objects.get(user=alice, organization=provider.org)
    assert membership.role == MemberRole.ENGINEER
    # Helix Labs' other administrator hears of it; so does Northwind's.
    told = Notice.objects.get(recipient=buyer_colleague.user, event="membership")
    assert told.subject == "alice, a member of Helix Labs, joined Northwind"
    assert Notice.objects.filter(recipient=provider.user, subject__contains="accepted").exists()
    assert any("joined Northwind" in m.subject for m in mail.outbox)
    # Even when the new organisation sorts first, her sign-ins still act for Helix Labs.
    provider.org.name = "Aardvark Compute"
    provider.org.save()
    assert _acting_slug(alice) == buyer.org.slug
    # On the record of the organisation she joined.
    entry = AuditEntry.objects.get(action="member.join")
    assert entry.actor == alice and entry.obj_key == f"org:{provider.org.pk}"


def _acting_slug(user) -> str:
    """Where a fresh sign-in and a header-less token call act (they must agree)."""
    client = Client()
    signed_in = client.post(reverse("login"), {"username": user.username, "password": PASSWORD})
    assert signed_in.status_code == 302
    page_org = client.get(MEMBERS).wsgi_request.org
    token = token_create(user=user, name="t")[1]
    rows = Client(HTTP_AUTHORIZATION=f"Token {token}").get(reverse("api:member-list")).json()
    api_members = {(row["username"], row["role"]) for row in rows["results"]}
    page_members = set(
        Membership.objects.filter(organization=page_org).values_list("user__username", "role")
    )
    assert api_members == page_members
    return page_org.slug


def test_the_default_is_the_organisation_last_chosen(buyer, provider):
    alice = buyer.user
    first = OrganizationFactory(name="Aardvark Compute", slug="aardvark", kind=OrgKind.PROVIDER)
    MembershipFactory(user=alice, organization=first, role=MemberRole.ENGINEER)
    assert _acting_slug(alice) == buyer.org.slug  # joined first, though it sorts after
    _signed_in(alice).post(reverse("orgs:switch-org"), {"organization": first.pk})
    assert _acting_slug(alice) == "aardvark"
    _signed_in(alice).post(reverse("orgs:switch-org"), {"organization": buyer.org.pk})
    assert _acting_slug(alice) == buyer.org.slug


def test_declining_closes_it_and_nobody_joins(buyer, provider):
    _invite(provider, buyer.user.email)
    invitation = MemberInvitation.objects.get()
    client = _signed_in(buyer.user)
    page = _text(client.post(reverse("orgs:invitation-decline", args=[invitation.pk]), follow=True))
    assert "You declined the invitation to Northwind." in page and 'id="no-invitations"' in page
    assert not Membership.objects.filter(user=buyer.user, organization=provider.org).exists()
    assert AuditEntry.objects.filter(action="member.decline").exists()
    # Answered once: a second answer finds nothing.
    again = client.post(reverse("orgs:invitation-accept", args=[invitation.pk]))
    assert again.status_code == 404


def test_someone_else_cannot_answer_it(buyer, provider, outsider):
    _invite(provider, buyer.user.email)
    invitation = MemberInvitation.objects.get()
    for url in ("orgs:invitation-accept", "orgs:invitation-decline"):
        assert outsider.client().post(reverse(url, args=[invitation.pk])).status_code == 404
    assert 'id="no-invitations"' in outsider.client().get(INVITATIONS).content.decode()
    assert not Membership.objects.filter(user=outsider.user, organization=provider.org).exists()


def test_an_admin_withdraws_an_open_invitation_on_the_record(buyer, provider):
    _invite(provider, buyer.user.email)
    invitation = MemberInvitation.objects.get()
    page = _text(
        provider.client().post(
            reverse("orgs:invitation-withdraw", args=[invitation.pk]), follow=True
        )
    )
    assert f"The invitation to {buyer.user.email} is withdrawn." in page
    assert 'id="no-invitations"' in _signed_in(buyer.user).get(INVITATIONS).content.decode()
    entries = list(AuditEntry.objects.order_by("pk").values_list("action", flat=True))
    assert entries == ["member.invite", "member.withdraw"]


def test_one_open_invitation_per_address(provider):
    _invite(provider, "carol@example.com")
    page = _text(_invite(provider, "Carol@Example.com", role="approver"))
    assert "carol@example.com already has an open invitation to Northwind" in page
    assert MemberInvitation.objects.count() == 1


def test_both_pages_show_when_it_expires(buyer, provider, settings):
    settings.MEMBER_INVITATION_DAYS = 10
    _invite(provider, buyer.user.email)
    invitation = MemberInvitation.objects.get()
    when = f"{invitation.expires_at:%-d %b %Y, %H:%M} UTC"
    assert when in _text(_signed_in(buyer.user).get(INVITATIONS))
    assert when in _text(provider.client().get(MEMBERS))
    assert timedelta(days=9, hours=23) < invitation.expires_at - timezone.now()


def test_an_expired_invitation_says_so_and_cannot_be_accepted(buyer, provider):
    _invite(provider, buyer.user.email)
    invitation = MemberInvitation.objects.get()
    MemberInvitation.objects.filter(pk=invitation.pk).update(
        expires_at=timezone.now() - timedelta(hours=1)
    )
    client = _signed_in(buyer.user)
    page = _text(client.get(INVITATIONS))
    assert "Expired" in page and "ask Northwind to invite you again" in page
    assert f'id="accept-{invitation.pk}"' not in page  # nothing to press
    answered = _text(
        client.post(reverse("orgs:invitation-accept", args=[invitation.pk]), follow=True)
    )
    assert "This invitation to Northwind expired on" in answered
    assert "Ask an administrator of Northwind to invite you again." in answered
    assert not Membership.objects.filter(user=buyer.user, organization=provider.org).exists()
    # The administrator sees it expired, and inviting again renews it.
    assert "invite the address again to renew it" in _text(provider.client().get(MEMBERS))
    _invite(provider, buyer.user.email)
    states = dict(MemberInvitation.objects.values_list("pk", "state"))
    assert states[invitation.pk] == "expired" and list(states.values()).count("pending") == 1
