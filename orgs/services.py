"""Managing an organisation's members: invite an e-mail address, change a role, remove; and
the invited person's answer.

Only the organisation's administrators invite, withdraw, change and remove (`PermissionDenied`
otherwise), a role must be one of the organisation's kind (buyer: requester, approver, admin;
provider: engineer, approver, admin) and an organisation always keeps one administrator.

Nobody becomes a member without consent: an invitation names an e-mail address, never an
account, and the person with that address accepts or declines it while signed in. What the
administrator is told is the same whether or not any account has the address, and nothing of
the person (username, name) reaches the organisation until they accept. Each change is sent as
`membership_changed` inside the transaction, which the audit trail records.

An invitation can be accepted until its `expires_at` (MEMBER_INVITATION_DAYS after it is
sent); after that accepting it is refused with the date, and the next invitation to the same
address closes it as expired.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone

from core.errors import Conflict, ServiceError
from orgs.choices import MemberRole
from orgs.models import InvitationState, MemberInvitation, Membership, Organization
from orgs.selectors import is_member_admin, roles_for
from orgs.signals import invitation_answered, invitation_sent, membership_changed


@transaction.atomic
def invitation_send(*, org: Organization, user: User, email: str, role: str) -> MemberInvitation:
    """Invite `email` to `org` with `role`; the person joins only when they accept."""
    org = _locked_for(org=org, user=user)
    _check_role(org=org, role=role)
    address = _address(email)
    pending = MemberInvitation.objects.filter(
        organization=org, email=address, state=InvitationState.PENDING
    )
    expired = list(pending.filter(expires_at__lte=timezone.now()).values_list("pk", flat=True))
    pending.filter(pk__in=expired).update(state=InvitationState.EXPIRED)
    if pending.exclude(pk__in=expired).exists():
        raise ValidationError(
            {"email": f"{address} already has an open invitation to {org.name}; withdraw it "
             "first to offer another role."}
        )  # fmt: skip
    invitation = MemberInvitation.objects.create(
        organization=org, email=address, role=role, invited_by=user
    )
    # The expired invitation it replaces is closed by the same move, on the same entry.
    before = {"expired": expired} if expired else None
    _changed(org=org, user=user, action="member.invite", before=before, after=_offer(invitation))
    invitation_sent.send(sender=MemberInvitation, invitation=invitation)
    return invitation


@transaction.atomic
def invitation_withdraw(*, invitation: MemberInvitation, user: User) -> None:
    org = _locked_for(org=invitation.organization, user=user)
    invitation = _open(invitation.pk)
    _answer(invitation, InvitationState.WITHDRAWN)
    _changed(org=org, user=user, action="member.withdraw", before=_offer(invitation))


@transaction.atomic
def invitation_accept(*, invitation: MemberInvitation, user: User) -> Membership:
    """The invited person joins. Their default organisation stays the one they last chose.
    An expired invitation is refused (`Conflict`) with the date it expired."""
    invitation = _open(invitation.pk, for_user=user)
    if invitation.expires_at <= timezone.now():
        when = invitation.expires_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
        raise Conflict(
            f"This invitation to {invitation.organization.name} expired on {when}. Ask an "
            f"administrator of {invitation.organization.name} to invite you again."
        )
    previous = list(Membership.objects.filter(user=user).values_list("organization_id", flat=True))
    membership, _ = Membership.objects.get_or_create(
        user=user, organization=invitation.organization, defaults={"role": invitation.role}
    )
    _answer(invitation, InvitationState.ACCEPTED)
    _changed(org=invitation.organization, user=user, action="member.join", after=_state(membership))
    invitation_answered.send(
        sender=MemberInvitation,
        invitation=invitation,
        user=user,
        accepted=True,
        previous_org_ids=[pk for pk in previous if pk != invitation.organization_id],
    )
    return membership


@transaction.atomic
def invitation_decline(*, invitation: MemberInvitation, user: User) -> None:
    invitation = _open(invitation.pk, for_user=user)
    _answer(invitation, InvitationState.DECLINED)
    _changed(
        org=invitation.organization, user=user, action="member.decline", before=_offer(invitation)
    )
    invitation_answered.send(
        sender=MemberInvitation,
        invitation=invitation,
        user=user,
        accepted=False,
        previous_org_ids=[],
    )


@transaction.atomic
def choose_organization(*, user: User, org_id: int) -> bool:
    """Remember `org_id` as the person's default (where their next sign-in and header-less
    token calls act); False when they are not a member of it."""
    return bool(
        Membership.objects.filter(user=user, organization_id=org_id).update(
            chosen_at=timezone.now()
        )
    )


@transaction.atomic
def member_set_role(*, membership: Membership, user: User, role: str) -> Membership:
    org = _locked_for(org=membership.organization, user=user)
    _check_role(org=org, role=role)
    membership = Membership.objects.select_related("user").get(pk=membership.pk)
    if membership.role == role:
        return membership
    if role != MemberRole.ADMIN:
        _keep_an_admin(org=org, membership=membership, doing="change the role of")
    before = _state(membership)
    membership.role = role
    membership.save(update_fields=["role"])
    _changed(org=org, user=user, action="member.role", before=before, after=_state(membership))
    return membership


@transaction.atomic
def member_remove(*, membership: Membership, user: User) -> None:
    org = _locked_for(org=membership.organization, user=user)
    membership = Membership.objects.select_related("user").get(pk=membership.pk)
    _keep_an_admin(org=org, membership=membership, doing="remove")
    before = _state(membership)
    membership.delete()
    _changed(org=org, user=user, action="member.remove", before=before)


def _locked_for(*, org: Organization, user: User) -> Organization:
    """Lock the organisation row so two admins' concurrent changes run one after the other
    (and can never both remove the last other administrator); then check the actor."""
    locked = Organization.objects.select_for_update().get(pk=org.pk)
    if not is_member_admin(org=locked, user=user):
        raise PermissionDenied(f"Only an administrator of {locked.name} can change its members.")
    return locked


def _check_role(*, org: Organization, role: str) -> None:
    choices = roles_for(org)
    if role not in {value for value, _ in choices}:
        names = ", ".join(label.lower() for _, label in choices)
        raise ValidationError(
            {"role": f"A {org.get_kind_display().lower()} organisation's roles are: {names}."}
        )


def _keep_an_admin(*, org: Organization, membership: Membership, doing: str) -> None:
    if membership.role != MemberRole.ADMIN:
        return
    others = (
        Membership.objects.filter(organization=org, role=MemberRole.ADMIN)
        .exclude(pk=membership.pk)
        .exists()
    )
    if not others:
        raise ServiceError(
            f"{membership.user.get_username()} is the last administrator of {org.name}: make "
            f"another member administrator first, then {doing} {membership.user.get_username()}."
        )


def _address(email: str) -> str:
    wanted = email.strip().lower()
    try:
        validate_email(wanted)
    except ValidationError:
        raise ValidationError(
            {"email": f"“{email.strip()}” is not an e-mail address; give the person's address."}
        ) from None
    return wanted


def _open(pk: int, *, for_user: User | None = None) -> MemberInvitation:
    """The invitation, locked, still open (and, for its answer, addressed to `for_user`)."""
    invitation = (
        MemberInvitation.objects.select_for_update(of=("self",))
        .select_related("organization")
        .get(pk=pk)
    )
    addressed = for_user is None or (
        bool(for_user.email) and for_user.email.strip().lower() == invitation.email
    )
    if invitation.state != InvitationState.PENDING or not addressed:
        raise Conflict(
            f"This invitation to {invitation.organization.name} is no longer open "
            f"({invitation.get_state_display().lower()})."
        )
    return invitation


def _answer(invitation: MemberInvitation, state: str) -> None:
    invitation.state, invitation.answered_at = state, timezone.now()
    invitation.save(update_fields=["state", "answered_at"])


def _offer(invitation: MemberInvitation) -> dict[str, Any]:
    return {
        "invited": invitation.email,
        "role": invitation.role,
        "expires_at": invitation.expires_at.isoformat(),
    }


def _state(membership: Membership) -> dict[str, Any]:
    return {"member": membership.user.get_username(), "role": membership.role}


def _changed(
    *,
    org: Organization,
    user: User,
    action: str,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> None:
    membership_changed.send(
        sender=Membership, organization=org, user=user, action=action, before=before, after=after
    )
