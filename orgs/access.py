from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest
from django.http.response import HttpResponseBase

from orgs.models import Organization

View = Callable[..., HttpResponseBase]


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
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
