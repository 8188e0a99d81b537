"""Who a user is for an object: which party (the buyer's side or the provider's) and which role."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from core.lifecycle import Actor
from orgs.models import Membership, Organization


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
    belongs to it, else the first. A slug naming none of theirs acts for none: a 404 follows,
    never another organisation's data."""
    if slug:
        return next((m.organization for m in memberships if m.organization.slug == slug), None)
    chosen = next((m for m in memberships if m.organization_id == org_id), None)
    if chosen is None and memberships:
        chosen = memberships[0]
    return chosen.organization if chosen else None


def memberships_of(user: Any) -> list[Membership]:
    if not user.is_authenticated:
        return []
    return list(Membership.objects.filter(user=user).select_related("organization"))
