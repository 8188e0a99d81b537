"""Which organisation an API call acts for, and the 404-never-a-hint guards per kind.

A browser session acts for the organisation chosen in the page header; a token acts for the
user's first organisation unless the `X-Clusterbid-Org: <slug>` header names another of theirs.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import Http404
from rest_framework.request import Request

from orgs.choices import OrgKind
from orgs.models import Membership, Organization

ORG_HEADER = "X-Clusterbid-Org"
_CACHE = "_clusterbid_api_org"


def api_user(request: Request) -> User:
    """The signed-in user (views run behind IsAuthenticated)."""
    user = request.user
    if not isinstance(user, User):
        raise Http404
    return user


def api_org(request: Request) -> Organization | None:
    if hasattr(request, _CACHE):
        return getattr(request, _CACHE)
    org: Organization | None = None
    if request.user.is_authenticated:
        memberships = [
            m.organization
            for m in Membership.objects.filter(user=request.user).select_related("organization")
        ]
        wanted = request.headers.get(ORG_HEADER)
        session_org = getattr(request._request, "org", None)
        if wanted:
            org = next((o for o in memberships if o.slug == wanted), None)
        elif session_org is not None and any(o.pk == session_org.pk for o in memberships):
            org = session_org
        elif memberships:
            org = memberships[0]
    setattr(request, _CACHE, org)
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
