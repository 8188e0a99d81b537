"""Who a user is for an object: which party (the buyer's side or the provider's) and which role;
and who belongs to an organisation (the members page)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from core.lifecycle import Actor
from orgs.choices import ROLES_BY_KIND, MemberRole, OrgKind
from orgs.models import InvitationState, MemberInvitation, Membership, Organization


def actor_for(
    *, user: AbstractBaseUser | AnonymousUser | None, parties: Mapping[str, int | None]
) -> Actor:
    """The user's role in each of `parties` (party name -> organisation id) they belong to."""
    user_id = getattr(user, "pk", None)
    if user_id is None:
        return Actor(user_id=None)
    roles = dict(
        Membership.objects.filter(
            user_id=user_id, organization_id__in=[o for o in parties.values() if o]
        ).values_list("organization_id", "role")
    )
    return Actor(
        user_id=user_id,
        roles={party: roles[org] for party, org in parties.items() if org in roles},
    )


def acting_organization(
    *, memberships: list[Membership], slug: str | None = None, org_id: int | None = None
) -> Organization | None:
    """The one rule for which organisation a request acts for: the one named (by the API's
    `X-Clusterbid-Org` slug, or the id the page header stored in the session) if the user
    belongs to it, else their default (`default_membership`). A slug naming none of theirs acts
    for none: a 404 follows, never another organisation's data."""
    if slug:
        return next((m.organization for m in memberships if m.organization.slug == slug), None)
    chosen = next((m for m in memberships if m.organization_id == org_id), None)
    if chosen is None:
        chosen = default_membership(memberships)
    return chosen.organization if chosen else None


def default_membership(memberships: list[Membership]) -> Membership | None:
    """The organisation the person last chose in the page header (stored on the membership);
    never chosen, the one they joined first. Never the alphabetical first: joining another
    organisation must not move where their sign-ins and token calls act."""
    if not memberships:
        return None
    chosen = [m for m in memberships if m.chosen_at is not None]
    if chosen:
        return max(chosen, key=lambda m: (m.chosen_at, m.pk))
    return min(memberships, key=lambda m: (m.created_at, m.pk))


def memberships_of(user: Any) -> list[Membership]:
    """The user's memberships with their organisations (name, slug, kind), by organisation
    name: read on every signed-in page and API call."""
    if not user.is_authenticated:
        return []
    memberships = list(Membership.objects.raw(_MEMBERSHIPS_SQL, [user.pk]))
    for m in memberships:
        # The organisation's creation time stays deferred: nothing shown per request reads it.
        m.organization = Organization.from_db(
            Membership.objects.db,
            ["id", "name", "slug", "kind"],
            [m.organization_id, m.org_name, m.org_slug, m.org_kind],  # type: ignore[attr-defined]
        )
    return memberships


# Written once rather than built by the ORM per request: building the select_related query
# cost four times what running it did, on every signed-in request.
_MEMBERSHIPS_SQL = (
    "SELECT m.id, m.user_id, m.organization_id, m.role, m.created_at, m.chosen_at,"
    " o.name AS org_name, o.slug AS org_slug, o.kind AS org_kind"
    f" FROM {Membership._meta.db_table} m"
    f" JOIN {Organization._meta.db_table} o ON o.id = m.organization_id"
    " WHERE m.user_id = %s ORDER BY o.name, m.id"
)


def member_list(*, org: Organization) -> QuerySet[Membership]:
    """The organisation's members, for its members page and `GET /api/v1/members/`."""
    return (
        Membership.objects.filter(organization=org)
        .select_related("user")
        .order_by("user__username", "pk")
    )


def membership_get(*, org: Organization, pk: int) -> Membership:
    """One membership of `org`; any other organisation's (a forged id) is a 404."""
    return get_object_or_404(Membership.objects.select_related("user"), organization=org, pk=pk)


def is_member_admin(*, org: Organization | None, user: Any) -> bool:
    """The one rule for who manages an organisation's members: its administrators."""
    if org is None or getattr(user, "pk", None) is None:
        return False
    return Membership.objects.filter(
        organization=org, user_id=user.pk, role=MemberRole.ADMIN
    ).exists()


def roles_for(org: Organization) -> list[tuple[str, str]]:
    """The roles an organisation of this kind has, as (value, label) choices."""
    return [(role.value, role.label) for role in ROLES_BY_KIND[OrgKind(org.kind)]]


def invitations_pending(*, org: Organization) -> QuerySet[MemberInvitation]:
    """The organisation's open invitations: the address its administrator typed, nothing of
    any account's. Expired ones stay listed (`is_expired`) until the address is invited again
    or the invitation withdrawn."""
    return MemberInvitation.objects.filter(
        organization=org, state=InvitationState.PENDING
    ).select_related("invited_by")


def invitations_for(*, user: Any) -> QuerySet[MemberInvitation]:
    """The open invitations to the signed-in person's e-mail address, expired ones included
    (shown as such, and refused if accepted)."""
    email = (getattr(user, "email", "") or "").strip()
    if not email:
        return MemberInvitation.objects.none()
    return MemberInvitation.objects.filter(
        email__iexact=email, state=InvitationState.PENDING
    ).select_related("organization", "invited_by")


def invitation_for_invitee(*, user: Any, pk: int) -> MemberInvitation:
    """One open invitation to this person's address; anyone else's (or a closed one) is a 404."""
    return get_object_or_404(invitations_for(user=user), pk=pk)


def invitation_for_admin(*, org: Organization, pk: int) -> MemberInvitation:
    return get_object_or_404(invitations_pending(org=org), pk=pk)
