from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from acceptance import services
from acceptance.forms.fixtures import AcknowledgementForm, ExceptionFormSet
from acceptance.models import Fixture
from acceptance.selectors import fixtures as selectors
from acceptance.selectors import lot_parts
from acceptance.selectors.fixtures import AckState
from acceptance.selectors.lot_parts import LotAckState
from bids import selectors as bid_selectors
from bids.lots import lot_get
from bids.models import Bid, Lot
from contracts import selectors as terms_selectors
from contracts.models import HandoffTerms
from core.web import errors_into_form
from orgs.access import active_org, org_required, user_of
from orgs.choices import OrgKind


def _parts(bid: Bid, number: int | None) -> tuple[Lot | None, Fixture | None, HandoffTerms | None]:
    """What is acknowledged: the request's fixture and terms, or one lot's own (404 for a lot
    that shares the request's: it has nothing of its own to acknowledge)."""
    if number is None:
        req = bid.request
        fixture = selectors.fixture_for_request(capacity_request=req)
        return None, fixture, terms_selectors.terms_for_request(capacity_request=req)
    lot = lot_get(capacity_request=bid.request, number=number)
    fixture, terms = lot_parts.own_fixture(lot), lot_parts.own_terms(lot)
    if fixture is None and terms is None:
        raise Http404
    return lot, fixture, terms


@org_required(OrgKind.PROVIDER)
def acknowledge(request: HttpRequest, pk: int, number: int | None = None) -> HttpResponse:
    """The provider's acknowledgement for its bid: of the request's fixture and terms, or with
    `number` of that lot's own."""
    bid = bid_selectors.bid_get_for_provider(org=active_org(request), pk=pk)
    req = bid.request
    lot, fixture, terms = _parts(bid, number)
    version = selectors.fixture_current_version(fixture=fixture) if fixture else None
    choices = selectors.exception_field_choices(version=version, terms=terms)
    state: AckState | LotAckState = selectors.acknowledgement_state(bid=bid)
    if lot is not None:
        state = next(s for s in lot_parts.lot_acknowledgements(bid=bid) if s.lot == lot)
    initial_rows = state.ack.exceptions if state.ack else []
    data = request.POST if request.method == "POST" else None
    # Prefill the owner the provider named last time, else the one the buyer's terms name.
    owner_from = state.ack if state.ack and state.ack.provider_owner_name else terms
    form = AcknowledgementForm(
        data,
        initial={
            "status": state.ack.status if state.ack else None,
            "provider_owner_name": owner_from.provider_owner_name if owner_from else "",
            "provider_owner_contact": owner_from.provider_owner_contact if owner_from else "",
        },
        has_terms=terms is not None,
        terms_name_owner=bool(terms and terms.provider_owner_name.strip()),
    )
    formset = ExceptionFormSet(
        data, initial=initial_rows, prefix="exc", form_kwargs={"field_choices": choices}
    )
    if request.method == "POST" and form.is_valid() and formset.is_valid():
        rows = [f.cleaned_data for f in formset.forms if f.cleaned_data]
        try:
            services.acknowledgement_submit(
                bid=bid,
                user=user_of(request),
                status=form.cleaned_data["status"],
                exceptions=rows,
                provider_owner_name=form.cleaned_data["provider_owner_name"],
                provider_owner_contact=form.cleaned_data["provider_owner_contact"],
                lot=lot,
            )
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(request, "Acknowledgement recorded. The buyer sees it with your bid.")
            return redirect("bids:bid-detail", pk=bid.pk)
    return render(
        request,
        "acceptance/acknowledge_form.html",
        {
            "bid": bid,
            "req": req,
            "form": form,
            "formset": formset,
            "version": version,
            "terms": terms,
            "state": state,
            "lot": lot,
        },
    )
