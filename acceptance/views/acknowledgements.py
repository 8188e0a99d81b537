from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from acceptance import services
from acceptance.forms.fixtures import AcknowledgementForm, ExceptionFormSet
from acceptance.selectors import fixtures as selectors
from bids import selectors as bid_selectors
from contracts import selectors as terms_selectors
from core.web import errors_into_form
from orgs.access import active_org, org_required, user_of
from orgs.choices import OrgKind


@org_required(OrgKind.PROVIDER)
def acknowledge(request: HttpRequest, pk: int) -> HttpResponse:
    bid = bid_selectors.bid_get_for_provider(org=active_org(request), pk=pk)
    req = bid.request
    fixture = selectors.fixture_for_request(capacity_request=req)
    version = selectors.fixture_current_version(fixture=fixture) if fixture else None
    terms = terms_selectors.terms_for_request(capacity_request=req)
    choices = selectors.exception_field_choices(version=version, terms=terms)
    state = selectors.acknowledgement_state(bid=bid)
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
        },
    )
