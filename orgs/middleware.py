from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from core.logcontext import bind_organization
from orgs.selectors import acting_organization, memberships_of

SESSION_KEY = "active_org_id"


class ActiveOrganizationMiddleware:
    """Attach the signed-in user's active organisation (`request.org`) from the session.

    Without a choice in this session, the person's stored default (the organisation they last
    chose, else the one they joined first); a stale or foreign id in the session is ignored.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.org = None  # type: ignore[attr-defined]
        request.memberships = []  # type: ignore[attr-defined]
        if request.user.is_authenticated:
            memberships = memberships_of(request.user)
            request.memberships = memberships  # type: ignore[attr-defined]
            request.org = acting_organization(  # type: ignore[attr-defined]
                memberships=memberships, org_id=request.session.get(SESSION_KEY)
            )
            bind_organization(getattr(request.org, "pk", None))  # type: ignore[attr-defined]
        return self.get_response(request)
