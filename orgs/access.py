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


def org_required(kind: str | None = None) -> Callable[[View], View]:
    """Signed in, with an active organisation of the given kind; otherwise 404 (never a hint)."""

    def decorator(view: View) -> View:
        @login_required
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            org = active_org(request)
            if org is None or (kind is not None and org.kind != kind):
                raise Http404
            try:
                return view(request, *args, **kwargs)
            except OrganizationSwitch as switch:
                request.session[SESSION_KEY] = switch.org.pk
                messages.info(request, f"Switched to {switch.org.name} to show this page.")
                return HttpResponseRedirect(request.get_full_path())

        return wrapped

    return decorator
