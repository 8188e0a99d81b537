from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from orgs.access import active_org


@login_required
def home(request: HttpRequest) -> HttpResponse:
    org = active_org(request)
    if org is None:
        return render(request, "bids/no_organisation.html")
    if org.is_buyer:
        return redirect("bids:request-list")
    return redirect("bids:inbox")
