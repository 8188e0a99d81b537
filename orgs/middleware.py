from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from orgs.models import Membership

SESSION_KEY = "active_org_id"


class ActiveOrganizationMiddleware:
    """Attach the signed-in user's active organisation (`request.org`) from the session.

    The first membership is the default; a stale or foreign id in the session is ignored.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.org = None  # type: ignore[attr-defined]
        request.memberships = []  # type: ignore[attr-defined]
        if request.user.is_authenticated:
            memberships = list(
                Membership.objects.filter(user=request.user).select_related("organization")
            )
            wanted = request.session.get(SESSION_KEY)
            chosen = next((m for m in memberships if m.organization_id == wanted), None)
            if chosen is None and memberships:
                chosen = memberships[0]
            request.memberships = memberships  # type: ignore[attr-defined]
            request.org = chosen.organization if chosen else None  # type: ignore[attr-defined]
        return self.get_response(request)
