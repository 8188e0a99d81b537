"""Managing an organisation's members: add an existing account, change a role, remove.

Only the organisation's administrators may (`PermissionDenied` otherwise), a role must be one of
the organisation's kind (buyer: requester, approver, admin; provider: engineer, approver, admin)
and an organisation always keeps one administrator. Each change is sent as `membership_changed`
inside the transaction, which the audit trail records.

There is no invitation flow: a member is added from an account that already exists (site staff
create accounts in the admin), found by username or e-mail.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from core.errors import ServiceError
from orgs.choices import MemberRole
from orgs.models import Membership, Organization
from orgs.selectors import is_member_admin, roles_for
from orgs.signals import membership_changed


@transaction.atomic
def member_add(*, org: Organization, user: User, identifier: str, role: str) -> Membership:
    """Add the account named by `identifier` (username or e-mail) to `org` with `role`."""
    org = _locked_for(org=org, user=user)
    _check_role(org=org, role=role)
    account = _account(identifier)
    existing = Membership.objects.filter(organization=org, user=account).first()
    if existing is not None:
        raise ValidationError(
            {
                "identifier": f"{account.get_username()} is already a member of {org.name} "
                f"({existing.get_role_display().lower()}); change the role in the list instead."
            }
        )
    membership = Membership.objects.create(user=account, organization=org, role=role)
    _changed(org=org, user=user, action="member.add", after=_state(membership))
    return membership


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


def _account(identifier: str) -> User:
    wanted = identifier.strip()
    if not wanted:
        raise ValidationError({"identifier": "Give the person's username or e-mail address."})
    by_username = User.objects.filter(username=wanted, is_active=True).first()
    if by_username is not None:
        return by_username
    matches = list(User.objects.filter(email__iexact=wanted, is_active=True)[:2])
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise ValidationError(
            {"identifier": f"More than one account uses {wanted}; give the username instead."}
        )
    raise ValidationError(
        {
            "identifier": f"No Clusterbid account has the username or e-mail “{wanted}”. "
            "Accounts are created by the site's operators; once they have one, add them here."
        }
    )


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
