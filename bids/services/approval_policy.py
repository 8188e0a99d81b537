"""A buyer organisation's approval policy and its delegations: administrators set the
thresholds; an approver delegates their approvals to a colleague while away (an administrator
may record it for them)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from audit.models import Party
from audit.services import audit_record, buyer_only
from bids.models import ApprovalPolicy, Delegation
from bids.services.approvals import APPROVING_ROLES
from orgs.choices import MemberRole, OrgKind
from orgs.models import Membership, Organization

POLICY_FIELDS = ("publish_one_over", "publish_two_over", "award_one_over", "award_two_over")


def _role(*, organization: Organization, user: User) -> str | None:
    membership = Membership.objects.filter(organization=organization, user=user).first()
    return membership.role if membership else None


def _require_buyer(organization: Organization) -> None:
    if organization.kind != OrgKind.BUYER:
        raise PermissionDenied("Approval policies are for buyer organisations.")


@transaction.atomic
def policy_update(
    *, organization: Organization, user: User, thresholds: dict[str, Decimal | None]
) -> ApprovalPolicy:
    """Set the four thresholds; a two-approver threshold above a one-approver one would leave a
    band asking one approver, below it a band asking two: both are fine, but the two-approver
    threshold may not be lower than the one-approver one (it would never ask only one)."""
    _require_buyer(organization)
    if _role(organization=organization, user=user) != MemberRole.ADMIN:
        raise PermissionDenied("Only an administrator of the organisation sets its policy.")
    errors: dict[str, list[str]] = {}
    for move in ("publish", "award"):
        one, two = thresholds.get(f"{move}_one_over"), thresholds.get(f"{move}_two_over")
        if one is not None and two is not None and two < one:
            errors[f"{move}_two_over"] = [
                "The two-approver threshold must be at least the one-approver threshold."
            ]
    if errors:
        raise ValidationError(errors)
    policy, _ = ApprovalPolicy.objects.select_for_update().get_or_create(organization=organization)
    before = {name: getattr(policy, name) for name in POLICY_FIELDS}
    for name in POLICY_FIELDS:
        setattr(policy, name, thresholds.get(name))
    policy.updated_by = user
    policy.save()
    _record(organization, user, "org.approval_policy", before=before, after=thresholds)
    return policy


@transaction.atomic
def delegation_add(
    *,
    organization: Organization,
    user: User,
    delegator: User,
    delegate: User,
    starts_on: date,
    ends_on: date,
) -> Delegation:
    _require_buyer(organization)
    role = _role(organization=organization, user=user)
    if role != MemberRole.ADMIN and not (role in APPROVING_ROLES and delegator == user):
        raise PermissionDenied(
            "An approver delegates their own approvals; an administrator may record anyone's."
        )
    errors: dict[str, list[str]] = {}
    if _role(organization=organization, user=delegator) not in APPROVING_ROLES:
        errors["delegator"] = ["Only an approver or administrator has approvals to delegate."]
    if _role(organization=organization, user=delegate) is None:
        errors["delegate"] = ["The delegate must be a member of the organisation."]
    elif delegate == delegator:
        errors["delegate"] = ["Delegate to someone else."]
    if ends_on < starts_on:
        errors["ends_on"] = ["The last day cannot be before the first."]
    if errors:
        raise ValidationError(errors)
    delegation = Delegation.objects.create(
        organization=organization,
        delegator=delegator,
        delegate=delegate,
        starts_on=starts_on,
        ends_on=ends_on,
        created_by=user,
    )
    _record(organization, user, "org.delegation_add", after=_plain(delegation))
    return delegation


@transaction.atomic
def delegation_remove(*, delegation: Delegation, user: User) -> None:
    organization = delegation.organization
    if user != delegation.delegator and _role(organization=organization, user=user) != (
        MemberRole.ADMIN
    ):
        raise PermissionDenied("Only the approver who delegated, or an administrator, ends it.")
    before = _plain(delegation)
    delegation.delete()
    _record(organization, user, "org.delegation_remove", before=before)


def _plain(delegation: Delegation) -> dict[str, Any]:
    return {
        "delegator": delegation.delegator.get_username(),
        "delegate": delegation.delegate.get_username(),
        "starts_on": delegation.starts_on,
        "ends_on": delegation.ends_on,
    }


def _record(
    organization: Organization,
    user: User,
    action: str,
    *,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> None:
    audit_record(
        action=action,
        obj_key=f"org:{organization.pk}",
        request_id=None,
        user=user,
        org_id=organization.pk,
        party=Party.BUYER,
        audience=buyer_only(buyer_org_id=organization.pk),
        before=before,
        after=after,
    )
