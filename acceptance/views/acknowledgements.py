from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from acceptance import selectors, services
from acceptance.forms import AcknowledgementForm, ExceptionFormSet
from bids import selectors as bid_selectors
from bids.choices import OrgKind
from bids.views.common import active_org, org_required, user_of
from contracts import selectors as terms_selectors


@org_required(OrgKind.PROVIDER)
def acknowledge(request: HttpRequest, pk: int) -> HttpResponse:
    bid = bid_selectors.bid_get_for_provider(org=active_org(request), pk=pk)
    req = bid.request
    fixture = selectors.fixture_for_request(request=req)
    version = selectors.fixture_current_version(fixture=fixture) if fixture else None
    terms = terms_selectors.terms_for_request(request=req)
    choices = selectors.exception_field_choices(version=version, terms=terms)
    state = selectors.acknowledgement_state(bid=bid)
    initial_rows = state.ack.exceptions if state.ack else []
    data = request.POST if request.method == "POST" else None
    form = AcknowledgementForm(data, initial={"status": state.ack.status if state.ack else None})
    formset = ExceptionFormSet(
        data, initial=initial_rows, prefix="exc", form_kwargs={"field_choices": choices}
    )
    if request.method == "POST" and form.is_valid() and formset.is_valid():
        rows = [f.cleaned_data for f in formset.forms if f.cleaned_data]
        try:
            services.acknowledgement_submit(
                bid=bid, user=user_of(request), status=form.cleaned_data["status"], exceptions=rows
            )
        except ValidationError as exc:
            if hasattr(exc, "error_dict"):
                for field, errors in exc.message_dict.items():
                    form.add_error("status" if field == "status" else None, errors)
            else:
                form.add_error(None, exc.messages)
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
