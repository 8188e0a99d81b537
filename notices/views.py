"""The user's notices: the list, opening one, marking all read, and per-event preferences.

Notices belong to a user, not to the acting organisation: every page here shows only the
signed-in user's own, and another user's notice is a 404."""

from __future__ import annotations

from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from notices import selectors, services
from notices.forms import PreferencesForm
from orgs.middleware import SESSION_KEY

PAGE_SIZE = 25


def _user(request: HttpRequest) -> User:
    assert isinstance(request.user, User)  # behind login_required
    return request.user


@login_required
def notice_list(request: HttpRequest) -> HttpResponse:
    page = Paginator(selectors.notice_list(user=_user(request)), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return render(request, "notices/list.html", {"page": page})


@login_required
def notice_open(request: HttpRequest, public_id: UUID) -> HttpResponse:
    """Mark it read and go to its object, acting for the organisation the notice is for."""
    notice = selectors.notice_get(user=_user(request), public_id=public_id)
    services.notice_mark_read(notice=notice)
    if any(m.organization_id == notice.organization_id for m in request.memberships):  # type: ignore[attr-defined]
        request.session[SESSION_KEY] = notice.organization_id
    if not url_has_allowed_host_and_scheme(notice.path, allowed_hosts=None):
        return redirect("notices:list")
    return redirect(notice.path)


@login_required
@require_POST
def notice_read_all(request: HttpRequest) -> HttpResponse:
    count = services.notice_mark_all_read(user=_user(request))
    messages.success(request, f"Marked {count} notice{'s' if count != 1 else ''} read.")
    return redirect("notices:list")


@login_required
def preferences(request: HttpRequest) -> HttpResponse:
    user = _user(request)
    rows = selectors.preference_rows(user=user)
    form = PreferencesForm(request.POST if request.method == "POST" else None, rows=rows)
    if request.method == "POST" and form.is_valid():
        services.preferences_update(user=user, choices=form.choices())
        messages.success(request, "Notice preferences saved.")
        return redirect("notices:preferences")
    return render(request, "notices/preferences.html", {"form": form})
