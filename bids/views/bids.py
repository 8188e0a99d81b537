from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from bids import selectors, services
from bids.choices import BidStatus
from bids.forms import BidForm
from bids.lifecycle import BID, bid_actor
from bids.lot_forms import LotOffersForm
from bids.lots import lot_list, lot_terms
from bids.models import Bid
from bids.services.bids import DERIVED_FROM_OFFERS
from core.web import errors_into_form, flash_errors
from orgs.access import active_org, get_for_acting_org, org_required, user_of
from orgs.choices import OrgKind


@org_required(OrgKind.PROVIDER)
@require_POST
def bid_start(request: HttpRequest, pk: int) -> HttpResponse:
    org = active_org(request)
    assert org is not None
    req = selectors.request_get_for_org(org=org, pk=pk)
    try:
        bid = services.bid_start(capacity_request=req, provider=org, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
        return redirect("bids:request-detail", pk=pk)
    return redirect("bids:bid-edit", pk=bid.pk)


@org_required()
def bid_detail(request: HttpRequest, pk: int) -> HttpResponse:
    org = active_org(request)
    bid = get_for_acting_org(request, lambda o: selectors.bid_get_for_org(org=o, pk=pk))
    revisions = selectors.revision_list(bid=bid)
    is_owner = org is not None and bid.provider_id == org.pk
    awarded = bid.status == BidStatus.AWARDED
    # The buyer reads the latest frozen revision, never the provider's working draft; once
    # awarded, both read the revision that won (a draft edit left unsubmitted did not).
    shown = bid if is_owner and not awarded else revisions.first()
    return render(
        request,
        "bids/bid_detail.html",
        {
            "bid": bid,
            "shown": shown,
            "revisions": revisions,
            "is_owner": is_owner,
            "awarded": awarded,
            # Its reservations (several on a split award), by lot: through the reverse
            # relation, so bids imports nothing of acceptance.
            "reservations": list(
                bid.reservations.select_related("lot").order_by("lot__number", "pk")
            )
            if awarded
            else [],
        },
    )


@org_required(OrgKind.PROVIDER)
def bid_edit(request: HttpRequest, pk: int) -> HttpResponse:
    bid = selectors.bid_get_for_provider(org=active_org(request), pk=pk)
    edit = BID.decide(bid, "edit", actor=bid_actor(bid, request.user))
    if not edit.allowed:
        # A frozen draft offers no form (bidding closed, awarded...): the bid page says why.
        messages.error(request, edit.reason)
        return redirect("bids:bid-detail", pk=bid.pk)
    form = BidForm(request.POST or None, instance=bid)
    lot_form = _lot_offers_form(request, bid, form)
    refused_keys: list[str] = []
    if request.method == "POST" and form.is_valid() and (lot_form is None or lot_form.is_valid()):
        data = {name: form.cleaned_data[name] for name in form.Meta.fields}
        if lot_form is not None:
            data.update(lot_form.lot_data())
        submitting = "submit" in request.POST
        try:
            services.bid_save_draft(bid=bid, user=user_of(request), data=data)
            if submitting:
                revision = services.bid_submit(bid=bid, user=user_of(request))
        except ValidationError as exc:
            fix, refused_keys = _errors_onto_forms(exc, form, lot_form)
            if submitting:
                form.add_error(None, f"Not submitted: {fix}. Your draft is kept.")
        else:
            if submitting:
                messages.success(request, f"Revision {revision.number} submitted and frozen.")
            else:
                messages.success(
                    request, "Draft saved. It is not visible to the buyer until you submit."
                )
            return redirect("bids:bid-detail", pk=bid.pk)
    return render(
        request,
        "bids/bid_form.html",
        {"form": form, "bid": bid, "lot_form": lot_form, "refused_keys": refused_keys},
    )


DERIVED_FROM_LOTS = "Worked out from your lot offers below."


def _lot_offers_form(request: HttpRequest, bid: Bid, form: BidForm) -> LotOffersForm | None:
    """On a request with lots: the offers per lot; the bid's own price and nodes then follow
    from them (see `services.bids.lot_rules`), so they are shown, not typed."""
    lots = list(lot_list(capacity_request=bid.request))
    if not lots:
        return None
    for name in DERIVED_FROM_OFFERS:
        form.fields[name].disabled = True
        form.fields[name].help_text = DERIVED_FROM_LOTS
    terms = lot_terms(bid, [lot.spec() for lot in lots])
    return LotOffersForm(request.POST or None, lots=lots, terms=terms)


def _errors_onto_forms(
    exc: ValidationError, form: BidForm, lot_form: LotOffersForm | None
) -> tuple[str, list[str]]:
    """Lot offer and bundle problems go above the lots (they name the lot or bundle); the rest
    on their fields, or listed above the form when they name none of its fields. Returns what
    to fix, in words, and the names of the refusals fixed on another page (a questionnaire
    answer is `answers.<key>`), whose pages the `bids.bid_form_refused` slot links."""
    if not hasattr(exc, "error_dict"):
        errors_into_form(form, exc)
        return "fix what is listed here", []
    errors = exc.message_dict
    marked = False
    for key in ("lot_offers", "bundles"):
        if lot_form is not None and key in errors:
            lot_form.add_error(None, errors.pop(key))
            marked = True
    listed = [key for key in errors if key not in form.fields]
    marked = marked or len(listed) < len(errors)
    if errors:
        errors_into_form(form, ValidationError(errors))
    if not marked:
        return "fix what is listed here", listed
    if listed:
        return "fix what is listed here and the fields marked below", listed
    return "fix the fields marked below", listed


@org_required(OrgKind.PROVIDER)
@require_POST
def bid_submit(request: HttpRequest, pk: int) -> HttpResponse:
    bid = selectors.bid_get_for_provider(org=active_org(request), pk=pk)
    try:
        revision = services.bid_submit(bid=bid, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, f"Revision {revision.number} submitted and frozen.")
    return redirect("bids:bid-detail", pk=pk)


@org_required(OrgKind.PROVIDER)
@require_POST
def bid_withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    bid = selectors.bid_get_for_provider(org=active_org(request), pk=pk)
    try:
        services.bid_withdraw(bid=bid, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, "Bid withdrawn. You can submit again before the deadline.")
    return redirect("bids:bid-detail", pk=pk)


@org_required()
def revision_detail(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    bid = get_for_acting_org(request, lambda o: selectors.bid_get_for_org(org=o, pk=pk))
    revision = selectors.revision_get(bid=bid, number=number)
    return render(request, "bids/revision_detail.html", {"bid": bid, "revision": revision})
