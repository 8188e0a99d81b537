from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponseRedirect
from django.http.response import HttpResponseBase

from orgs.middleware import SESSION_KEY
from orgs.models import Organization

View = Callable[..., HttpResponseBase]
T = TypeVar("T")


class OrganizationSwitch(Exception):
    """The page's object belongs to another organisation of the user's: act for it instead."""

    def __init__(self, org: Organization) -> None:
        super().__init__(org.name)
        self.org = org


def get_for_acting_org(request: HttpRequest, lookup: Callable[[Organization | None], T]) -> T:
    """`lookup` (a tenancy selector that raises Http404) for the acting organisation. When it
    404s there but another of the user's organisations may see the object, a page read (GET)
    switches to that one rather than 404 a member; outsiders still get 404."""
    org = active_org(request)
    try:
        return lookup(org)
    except Http404:
        if request.method not in ("GET", "HEAD"):
            raise
        for membership in getattr(request, "memberships", []):
            other = membership.organization
            if org is not None and other.pk == org.pk:
                continue
            try:
                lookup(other)
            except Http404:
                continue
            raise OrganizationSwitch(other) from None
        raise


def active_org(request: HttpRequest) -> Organization | None:
    return getattr(request, "org", None)


def user_of(request: HttpRequest) -> User:
    """The signed-in user; only called behind `org_required`, which enforces sign-in."""
    assert isinstance(request.user, User)
    return request.user


def _switched(request: HttpRequest, org: Organization) -> HttpResponseBase:
    request.session[SESSION_KEY] = org.pk
    messages.info(request, f"Switched to {org.name} to show this page.")
    return HttpResponseRedirect(request.get_full_path())


def _other_org_that_sees_it(
    request: HttpRequest, view: View, args: Any, kwargs: Any, kind: str | None
) -> Organization | None:
    """Another organisation of the user's for which this GET answers; None for outsiders."""
    if request.method not in ("GET", "HEAD"):
        return None
    acting = active_org(request)
    try:
        for membership in getattr(request, "memberships", []):
            other = membership.organization
            if (acting is not None and other.pk == acting.pk) or (
                kind is not None and other.kind != kind
            ):
                continue
            request.org = other  # type: ignore[attr-defined]
            try:
                response = view(request, *args, **kwargs)
            except (Http404, OrganizationSwitch):
                continue
            if response.status_code != 404:
                return other
    finally:
        request.org = acting  # type: ignore[attr-defined]
    return None


def org_required(kind: str | None = None) -> Callable[[View], View]:
    """Signed in, with an active organisation of the given kind; otherwise 404 (never a hint)."""

    def decorator(view: View) -> View:
        @login_required
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            org = active_org(request)
            try:
                if org is None or (kind is not None and org.kind != kind):
                    raise Http404
                return view(request, *args, **kwargs)
            except OrganizationSwitch as switch:
                return _switched(request, switch.org)
            except Http404:
                # A page read that 404s for the acting organisation may belong to another of
                # the user's (a link from a notice, a bookmark, the Back button after a switch).
                other = _other_org_that_sees_it(request, view, args, kwargs, kind)
                if other is None:
                    raise
                return _switched(request, other)

        return wrapped

    return decorator
