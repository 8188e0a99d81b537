"""Which organisation an API call acts for, and the 404-never-a-hint guards per kind.

A browser session acts for the organisation chosen in the page header; a token acts for the
user's default organisation (orgs.selectors.default_membership: the one they last chose, else
the one they joined first) unless the `X-Clusterbid-Org: <slug>` header names another of theirs.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import Http404
from rest_framework.request import Request

from core.logcontext import bind_organization
from orgs.choices import OrgKind
from orgs.models import Membership, Organization
from orgs.selectors import acting_organization, memberships_of

ORG_HEADER = "X-Clusterbid-Org"
_CACHE = "_clusterbid_api_org"
_MEMBERSHIPS = "_clusterbid_api_memberships"


def api_user(request: Request) -> User:
    """The signed-in user (views run behind IsAuthenticated)."""
    user = request.user
    if not isinstance(user, User):
        raise Http404
    return user


def api_memberships(request: Request) -> list[Membership]:
    """The caller's memberships with their organisations, read once per call."""
    if hasattr(request, _MEMBERSHIPS):
        return getattr(request, _MEMBERSHIPS)
    # A session call's memberships were read by the middleware for this same user; a token
    # call's were not (the middleware saw no user yet).
    memberships = getattr(request._request, "memberships", None)
    if not memberships or memberships[0].user_id != request.user.pk:
        memberships = memberships_of(request.user)
    setattr(request, _MEMBERSHIPS, memberships)
    return memberships


def api_org(request: Request) -> Organization | None:
    if hasattr(request, _CACHE):
        return getattr(request, _CACHE)
    session_org = getattr(request._request, "org", None)
    org = acting_organization(
        memberships=api_memberships(request),
        slug=request.headers.get(ORG_HEADER),
        org_id=session_org.pk if session_org is not None else None,
    )
    setattr(request, _CACHE, org)
    bind_organization(org.pk if org is not None else None)
    return org


def org_of_kind(request: Request, kind: str | None = None) -> Organization:
    """The acting organisation, if it is of `kind`; otherwise a 404 that reveals nothing."""
    org = api_org(request)
    if org is None or (kind is not None and org.kind != kind):
        raise Http404
    return org


def buyer_org(request: Request) -> Organization:
    return org_of_kind(request, OrgKind.BUYER)


def provider_org(request: Request) -> Organization:
    return org_of_kind(request, OrgKind.PROVIDER)
