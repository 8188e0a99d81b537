"""Explaining a finding on burn-in evidence away (the run's page, buyer side). Thin: the
reservation's table says who may, the service checks the reason and records it."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from acceptance.forms.burnin import ExplainFindingForm
from acceptance.selectors import burnin as sel
from acceptance.services.findings import finding_explain
from acceptance.views.burnin import _buyer_only, run_page
from acceptance.views.evidence import org_ids
from core.web import flashed_or_onto_form
from orgs.access import org_required, user_of
from orgs.choices import OrgKind


@org_required(OrgKind.BUYER)
@require_POST
def run_explain_finding(request: HttpRequest, pk: int) -> HttpResponse:
    run = sel.run_get(org_ids=org_ids(request), pk=pk)
    _buyer_only(request, run.burnin_reservation)
    form = ExplainFindingForm(request.POST)
    if form.is_valid():
        try:
            finding_explain(
                run=run,
                user=user_of(request),
                key=form.cleaned_data["key"],
                reason=form.cleaned_data["reason"],
            )
        except ValidationError as exc:
            if flashed_or_onto_form(request, form, exc):
                return redirect("burnin:run-detail", pk=run.pk)
        else:
            messages.success(
                request,
                "Explanation recorded in the audit trail. The run is checked again; the finding "
                "no longer blocks while its files stay the same.",
            )
            return redirect("burnin:run-detail", pk=run.pk)
    return run_page(request, run, explain_form=form)
