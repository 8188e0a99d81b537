"""Notices about membership (orgs' invitation signals): the invited person is told of an
invitation, and when they accept, the administrators of the organisations they already belong
to (and of the one they joined) are told. Nobody who invited learns from a notice whether an
account has the address: only its owner is written to."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.urls import reverse

from notices.choices import Event
from notices.services import notify
from orgs.choices import MemberRole
from orgs.models import MemberInvitation, Organization
from orgs.signals import invitation_answered, invitation_sent


def _admins(org: Organization) -> list[User]:
    return list(
        User.objects.filter(
            memberships__organization=org, memberships__role=MemberRole.ADMIN, is_active=True
        ).order_by("pk")
    )


def _role(invitation: MemberInvitation) -> str:
    return str(invitation.get_role_display()).lower()


def on_invitation_sent(*, invitation: MemberInvitation, **_: Any) -> None:
    org = invitation.organization
    people = User.objects.filter(email__iexact=invitation.email, is_active=True)
    notify(
        event=Event.MEMBERSHIP,
        users=people,
        organization=org,
        subject=f"{org.name} invites you to join as {_role(invitation)}",
        body=f"{org.name} ({org.get_kind_display().lower()}) invited {invitation.email} to join "
        f"as {_role(invitation)}. Nothing changes until you accept it on your Invitations "
        "page, signed in; you may also decline it. If you did not expect this, decline it.",
        path=reverse("orgs:invitations"),
        key=f"member-invitation:{invitation.pk}",
        # Addressed to the invited person, who is not yet a member.
        for_organization=False,
    )


def on_invitation_answered(
    *,
    invitation: MemberInvitation,
    user: User,
    accepted: bool,
    previous_org_ids: list[int],
    **_: Any,
) -> None:
    org = invitation.organization
    who = user.get_full_name() or user.get_username()
    answer = "accepted" if accepted else "declined"
    notify(
        event=Event.MEMBERSHIP,
        users=[a for a in _admins(org) if a.pk != user.pk],
        organization=org,
        subject=f"{who} {answer} the invitation to {org.name}",
        body=f"{who} {answer} the invitation to {invitation.email} to join {org.name} as "
        f"{_role(invitation)}.",
        path=reverse("orgs:members"),
        key=f"member-invitation:{invitation.pk}:{answer}",
    )
    for other in Organization.objects.filter(pk__in=previous_org_ids).order_by("pk"):
        notify(
            event=Event.MEMBERSHIP,
            users=[a for a in _admins(other) if a.pk != user.pk],
            organization=other,
            subject=f"{who}, a member of {other.name}, joined {org.name}",
            body=f"{who}, a member of {other.name}, accepted an invitation to {org.name} "
            f"({org.get_kind_display().lower()}) as {_role(invitation)}. They still act for "
            f"{other.name} until they choose otherwise.",
            path=reverse("orgs:members"),
            key=f"member-joined:{invitation.pk}:{other.pk}",
        )


def connect() -> None:
    invitation_sent.connect(on_invitation_sent, dispatch_uid="notices.on_invitation_sent")
    invitation_answered.connect(
        on_invitation_answered, dispatch_uid="notices.on_invitation_answered"
    )
