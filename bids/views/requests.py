from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from bids import selectors, services
from bids.forms import CapacityRequestForm, InviteForm
from core.web import errors_into_form, flash_errors
from orgs.access import active_org, get_for_acting_org, org_required, user_of
from orgs.choices import OrgKind

PAGE_SIZE = 25


@org_required(OrgKind.BUYER)
def request_list(request: HttpRequest) -> HttpResponse:
    org = active_org(request)
    assert org is not None
    page = Paginator(selectors.request_list_for_buyer(org=org), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return render(request, "bids/request_list.html", {"page": page})


@org_required(OrgKind.BUYER)
def request_create(request: HttpRequest) -> HttpResponse:
    org = active_org(request)
    assert org is not None
    form = CapacityRequestForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            req = services.request_create(buyer=org, user=user_of(request), data=form.cleaned_data)
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(request, "Request saved as a draft. Invite providers, then publish.")
            return redirect("bids:request-detail", pk=req.pk)
    return render(request, "bids/request_form.html", {"form": form, "creating": True})


@org_required(OrgKind.BUYER)
def request_edit(request: HttpRequest, pk: int) -> HttpResponse:
    req = selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    form = CapacityRequestForm(request.POST or None, instance=req)
    for name, lock in selectors.request_locked_fields(request=req).items():
        # Shown but not editable; a disabled field keeps its stored value whatever is posted.
        form.fields[name].disabled = True
        form.fields[name].help_text = lock.note
    if request.method == "POST" and form.is_valid():
        try:
            services.request_update(request=req, user=user_of(request), data=form.cleaned_data)
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(request, "Request updated.")
            return redirect("bids:request-detail", pk=req.pk)
    return render(request, "bids/request_form.html", {"form": form, "req": req})


@org_required()
def request_detail(request: HttpRequest, pk: int) -> HttpResponse:
    org = active_org(request)
    assert org is not None
    req = get_for_acting_org(request, lambda o: selectors.request_get_for_org(org=o, pk=pk))
    context: dict[str, object] = {"req": req}
    if org.is_buyer:
        context.update(
            bid_rows=selectors.bid_rows_for_buyer(request=req),
            invitations=selectors.invitation_list(request=req),
            invite_form=InviteForm(choices=selectors.provider_choices(request=req)),
        )
    else:
        context["own_bid"] = selectors.own_bid(request=req, org=org)
    return render(request, "bids/request_detail.html", context)


def _transition(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    req = selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    service = {
        "publish": services.request_publish,
        "close": services.request_close,
        "cancel": services.request_cancel,
    }[action]
    try:
        service(request=req, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, f"Request {req.get_status_display().lower()}.")
    return redirect("bids:request-detail", pk=pk)


@org_required(OrgKind.BUYER)
@require_POST
def request_publish(request: HttpRequest, pk: int) -> HttpResponse:
    return _transition(request, pk, "publish")


@org_required(OrgKind.BUYER)
@require_POST
def request_close(request: HttpRequest, pk: int) -> HttpResponse:
    return _transition(request, pk, "close")


@org_required(OrgKind.BUYER)
@require_POST
def request_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    return _transition(request, pk, "cancel")


@org_required(OrgKind.BUYER)
@require_POST
def request_invite(request: HttpRequest, pk: int) -> HttpResponse:
    req = selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    form = InviteForm(request.POST, choices=selectors.provider_choices(request=req))
    if not form.is_valid():
        for error in form.errors.get("providers", []):
            messages.error(request, str(error))
        return redirect("bids:request-detail", pk=pk)
    try:
        created = services.request_invite(
            request=req, user=user_of(request), providers=list(form.cleaned_data["providers"])
        )
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        names = ", ".join(i.provider.name for i in created) or "nobody new"
        messages.success(request, f"Invited {names}.")
    return redirect("bids:request-detail", pk=pk)


@org_required(OrgKind.PROVIDER)
def inbox(request: HttpRequest) -> HttpResponse:
    org = active_org(request)
    assert org is not None
    page = Paginator(selectors.request_inbox_for_provider(org=org), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return render(request, "bids/inbox.html", {"page": page})
