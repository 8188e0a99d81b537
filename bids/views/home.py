from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from bids.middleware import SESSION_KEY
from bids.views.common import active_org


@login_required
def home(request: HttpRequest) -> HttpResponse:
    org = active_org(request)
    if org is None:
        return render(request, "bids/no_organisation.html")
    if org.is_buyer:
        return redirect("bids:request-list")
    return redirect("bids:inbox")


@login_required
@require_POST
def switch_org(request: HttpRequest) -> HttpResponse:
    wanted = request.POST.get("organization", "")
    allowed = {m.organization_id for m in getattr(request, "memberships", [])}
    if wanted.isdigit() and int(wanted) in allowed:
        request.session[SESSION_KEY] = int(wanted)
    # Pages of the previous organisation 404 for the new one, so land on its home.
    return redirect("home")
