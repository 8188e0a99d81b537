"""The baseline step time S2 is measured against: the buyer proposes its own job's, the
provider's approver or admin accepts or rejects it. Thin: the rules are in
incidents.services.baseline."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from acceptance.models import Reservation
from acceptance.selectors import burnin as res_sel
from core.uploads import NamedFileField
from core.web import flashed_or_onto_form
from incidents import selectors as sel
from incidents.lifecycle import baseline_decision
from incidents.models import BaselineProposal
from incidents.services import baseline as svc
from incidents.views import _org_ids
from orgs.access import org_required, user_of


class BaselineProposeForm(forms.Form):
    # Empty files pass the form so that the service names them.
    file = NamedFileField(
        label="Your job's step times",
        allow_empty_file=True,
        help_text="CSV rank,node,step,seconds,timestamp or time,step,step_seconds[,rank]: each "
        "step's median across ranks, then the median over the steps, is the proposed baseline.",
    )
    reason = forms.CharField(label="Why this baseline", widget=forms.Textarea(attrs={"rows": 3}))


class BaselineAnswerForm(forms.Form):
    reason = forms.CharField(
        label="Reason", required=False, widget=forms.Textarea(attrs={"rows": 2})
    )


def _page(
    request: HttpRequest, reservation: Reservation, *, form: BaselineProposeForm | None = None
) -> HttpResponse:
    value, source = sel.step_time_baseline(reservation)
    user = request.user
    context = {
        "reservation": reservation,
        "baseline_s": value,
        "baseline_source": source,
        "proposals": BaselineProposal.objects.filter(reservation=reservation).select_related(
            "proposed_by", "decided_by"
        ),
        "form": form or BaselineProposeForm(),
        "answer_form": BaselineAnswerForm(),
        "propose": baseline_decision(reservation, "baseline_propose", user=user),
        "accept": baseline_decision(reservation, "baseline_accept", user=user),
        "reject": baseline_decision(reservation, "baseline_reject", user=user),
    }
    return render(request, "incidents/baseline.html", context)


@org_required()
@require_http_methods(["GET", "POST"])
def baseline(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the baseline in force, the proposals and their answers. POST: the buyer proposes."""
    reservation = res_sel.reservation_get(org_ids=_org_ids(request), pk=pk)
    if request.method == "GET":
        return _page(request, reservation)
    form = BaselineProposeForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            row = svc.baseline_propose(
                reservation=reservation, user=user_of(request),
                upload=form.cleaned_data["file"], reason=form.cleaned_data["reason"],
            )  # fmt: skip
        except ValidationError as exc:
            if flashed_or_onto_form(request, form, exc):
                return redirect("incidents:baseline", pk=pk)
        else:
            messages.success(
                request, f"Baseline of {row.step_time_s:g} s proposed; the provider answers."
            )
            return redirect("incidents:baseline", pk=pk)
    return _page(request, reservation, form=form)


@org_required()
@require_POST
def baseline_answer(request: HttpRequest, pk: int, answer: str) -> HttpResponse:
    reservation = res_sel.reservation_get(org_ids=_org_ids(request), pk=pk)
    if answer not in ("accept", "reject"):
        raise Http404("Answer accept or reject.")
    form = BaselineAnswerForm(request.POST)
    form.is_valid()
    try:
        row = svc.baseline_answer(
            reservation=reservation, user=user_of(request), accept=answer == "accept",
            reason=form.cleaned_data.get("reason") or "",
        )  # fmt: skip
    except ValidationError as exc:
        flashed_or_onto_form(request, forms.Form(), exc)
    else:
        messages.success(request, f"Baseline of {row.step_time_s:g} s {row.status}.")
    return redirect("incidents:baseline", pk=pk)
