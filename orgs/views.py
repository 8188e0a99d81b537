from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from orgs.middleware import SESSION_KEY


@login_required
@require_POST
def switch_org(request: HttpRequest) -> HttpResponse:
    wanted = request.POST.get("organization", "")
    allowed = {m.organization_id for m in getattr(request, "memberships", [])}
    if wanted.isdigit() and int(wanted) in allowed:
        request.session[SESSION_KEY] = int(wanted)
    # Pages of the previous organisation 404 for the new one, so land on its home.
    return redirect("home")
