"""Who a user is for an object: which party (the buyer's side or the provider's) and which role."""

from __future__ import annotations

from collections.abc import Mapping

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from core.lifecycle import Actor
from orgs.models import Membership


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
