from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from bids import selectors, services
from bids.approval_selectors import asked_message
from bids.choices import RequestStatus
from bids.forms import AddendumForm, CapacityRequestForm, ConfirmForm, InviteForm, ReopenForm
from bids.gate_forms import SupplierInviteForm
from bids.gate_selectors import acceptances, details_open, gate_for, supplier_invitations
from bids.lifecycle import REQUEST, request_actor
from bids.lots import lot_list, lot_total
from bids.models import ApprovalAction, CapacityRequest
from bids.services.approvals import approval_ask, must_ask
from bids.views.clarifications import clarification_context
from bids.views.gate import gated_page
from core.web import errors_into_form, flash_errors, flashed_or_onto_form
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
    for name, lock in selectors.request_locked_fields(capacity_request=req).items():
        # Shown but not editable; a disabled field keeps its stored value whatever is posted.
        form.fields[name].disabled = True
        form.fields[name].help_text = lock.note
    if request.method == "POST" and form.is_valid():
        try:
            services.request_update(
                capacity_request=req, user=user_of(request), data=form.cleaned_data
            )
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(request, "Request updated.")
            return redirect("bids:request-detail", pk=req.pk)
    return render(request, "bids/request_form.html", {"form": form, "req": req})


@org_required()
def request_detail(request: HttpRequest, pk: int) -> HttpResponse:
    req = get_for_acting_org(request, lambda o: selectors.request_title_for_org(org=o, pk=pk))
    org = active_org(request)
    assert org is not None
    if not details_open(capacity_request=req, org=org):
        return gated_page(request, req, org)
    return _detail_page(request, req)


def _detail_page(
    request: HttpRequest,
    req: CapacityRequest,
    *,
    addendum_form: AddendumForm | None = None,
    clarifications: dict[str, Any] | None = None,
) -> HttpResponse:
    org = active_org(request)
    assert org is not None
    lots = list(lot_list(capacity_request=req))
    context: dict[str, object] = {
        "req": req,
        "addenda": selectors.addendum_list(capacity_request=req),
        "lots": lots,
        "lot_total": lot_total(capacity_request=req, lots=lots),
    }
    # Questions and addenda (bids/_clarifications.html), with a failed form's typed text.
    context.update(clarification_context(request, req, org, **(clarifications or {})))
    if org.is_buyer:
        context.update(
            bid_rows=selectors.bid_rows_for_buyer(capacity_request=req),
            invitations=selectors.invitation_list(capacity_request=req),
            invite_form=InviteForm(choices=selectors.provider_choices(capacity_request=req)),
            reopen_form=ReopenForm(),
            publish_asks=req.status == RequestStatus.DRAFT
            and must_ask(capacity_request=req, action=ApprovalAction.PUBLISH, bid=None),
            addendum_form=addendum_form or AddendumForm(),
            shortlisted=selectors.shortlisted_bids(capacity_request=req)
            if req.in_final_round
            else [],
            gate=gate_for(capacity_request=req),
            gate_acceptances=acceptances(capacity_request=req),
            supplier_invitations=supplier_invitations(capacity_request=req),
            supplier_invite_form=SupplierInviteForm(),
        )
    else:
        own_bid = selectors.own_bid(capacity_request=req, org=org)
        context["own_bid"] = own_bid
        # The bid's own rule when there is one (a final round's shortlist), else the request's.
        context["bidding_closed"] = (
            own_bid.closed_to_bids_reason() if own_bid else req.closed_to_new_bids_reason()
        )
    return render(request, "bids/request_detail.html", context)


@org_required(OrgKind.BUYER)
@require_POST
def request_publish(request: HttpRequest, pk: int) -> HttpResponse:
    req = selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    try:
        if must_ask(capacity_request=req, action=ApprovalAction.PUBLISH, bid=None):
            asked = approval_ask(
                capacity_request=req, action=ApprovalAction.PUBLISH, user=user_of(request)
            )
            messages.success(request, asked_message(asked))
        else:
            services.request_publish(capacity_request=req, user=user_of(request))
            messages.success(request, f"Request {req.get_status_display().lower()}.")
    except ValidationError as exc:
        flash_errors(request, exc)
    return redirect("bids:request-detail", pk=pk)


# Moves the request's table says need a confirmation: the page says what happens, then asks.
CONFIRMED_MOVES = {
    "close": (services.request_close, "Bidding closed."),
    "cancel": (services.request_cancel, "Request cancelled."),
}


def _confirm_page(
    request: HttpRequest, req: CapacityRequest, move: str, form: ConfirmForm
) -> HttpResponse:
    decision = REQUEST.decide(req, move, actor=request_actor(req, request.user))
    return render(
        request,
        "bids/request_confirm.html",
        {"req": req, "move": move, "decision": decision, "form": form},
    )


def _confirmed_move(request: HttpRequest, pk: int, move: str) -> HttpResponse:
    req = selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    # Bound on any POST, an empty one too: a post without the confirmation is asked again.
    form = ConfirmForm(request.POST if request.method == "POST" else None)
    if not form.is_bound or not form.is_valid():
        return _confirm_page(request, req, move, form)
    service, done = CONFIRMED_MOVES[move]
    try:
        service(capacity_request=req, user=user_of(request), confirmed=form.cleaned_data["confirm"])
    except ValidationError as exc:
        if flashed_or_onto_form(request, form, exc):
            return redirect("bids:request-detail", pk=pk)
        # Only the confirmation is missing: ask on the page.
        req.refresh_from_db()
        return _confirm_page(request, req, move, form)
    messages.success(request, done)
    return redirect("bids:request-detail", pk=pk)


@org_required(OrgKind.BUYER)
def request_close(request: HttpRequest, pk: int) -> HttpResponse:
    return _confirmed_move(request, pk, "close")


@org_required(OrgKind.BUYER)
def request_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    return _confirmed_move(request, pk, "cancel")


@org_required(OrgKind.BUYER)
def request_reopen(request: HttpRequest, pk: int) -> HttpResponse:
    req = selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    form = ReopenForm(request.POST if request.method == "POST" else None)
    if form.is_bound and form.is_valid():
        try:
            services.request_reopen(
                capacity_request=req,
                user=user_of(request),
                bid_deadline=form.cleaned_data["bid_deadline"],
                confirmed=form.cleaned_data["confirm"],
            )
        except ValidationError as exc:
            if flashed_or_onto_form(request, form, exc):
                return redirect("bids:request-detail", pk=pk)
            req.refresh_from_db()
        else:
            messages.success(request, "Bidding reopened until the new deadline.")
            return redirect("bids:request-detail", pk=pk)
    return _confirm_page(request, req, "reopen", form)


@org_required(OrgKind.BUYER)
@require_POST
def request_addendum(request: HttpRequest, pk: int) -> HttpResponse:
    req = selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    form = AddendumForm(request.POST)
    if form.is_valid():
        try:
            addendum = services.addendum_publish(
                capacity_request=req,
                user=user_of(request),
                title=form.cleaned_data["title"],
                text=form.cleaned_data["text"],
                confirmed=form.cleaned_data["confirm"],
                bid_deadline=form.cleaned_data["bid_deadline"],
                summary=form.cleaned_data["summary"],
            )
        except ValidationError as exc:
            if flashed_or_onto_form(request, form, exc):
                return redirect("bids:request-detail", pk=pk)
        else:
            messages.success(
                request, f"Addendum {addendum.number} published; every invited provider is told."
            )
            return redirect(reverse("bids:request-detail", args=[pk]) + "#addenda")
    # The request's page again, with what was typed and each field's error in place.
    return _detail_page(request, req, addendum_form=form)


@org_required(OrgKind.BUYER)
@require_POST
def request_invite(request: HttpRequest, pk: int) -> HttpResponse:
    req = selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    form = InviteForm(request.POST, choices=selectors.provider_choices(capacity_request=req))
    if not form.is_valid():
        for error in form.errors.get("providers", []):
            messages.error(request, str(error))
        return redirect("bids:request-detail", pk=pk)
    try:
        created = services.request_invite(
            capacity_request=req,
            user=user_of(request),
            providers=list(form.cleaned_data["providers"]),
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
