"""The buyer's award scenarios page: define, edit, solve again, compare side by side.

Buyer members of the request's organisation only (`request_get_for_buyer`: anyone else gets a
404); nothing but a notice while the bids are sealed."""

from __future__ import annotations

import copy

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from bids import selectors
from bids.lifecycle import REQUEST, request_actor
from bids.models import CapacityRequest
from core.web import flash_errors, flashed_or_onto_form, keep_input, kept_input
from evaluation.scenario_award import scenario_award
from evaluation.scenario_compare import scenario_table
from evaluation.scenario_export import XLSX_TYPE, scenarios_filename
from evaluation.scenario_export import scenarios_xlsx as scenarios_xlsx_bytes
from evaluation.scenario_forms import ScenarioForm
from evaluation.scenario_inputs import current_revision_ids
from evaluation.scenario_models import AwardScenario
from evaluation.scenario_selectors import (
    awarded_scenario,
    scenario_bidders,
    scenario_get,
    scenario_list,
)
from evaluation.scenario_services import scenario_create, scenario_solve_queue, scenario_update
from orgs.access import active_org, org_required, user_of
from orgs.choices import OrgKind


def _request(request: HttpRequest, pk: int) -> CapacityRequest:
    return selectors.request_get_for_buyer(org=active_org(request), pk=pk)


def _page(
    request: HttpRequest,
    req: CapacityRequest,
    form: ScenarioForm,
    *,
    editing: AwardScenario | None = None,
    status: int = 200,
) -> HttpResponse:
    scenarios = list(scenario_list(capacity_request=req))
    return render(
        request,
        "evaluation/scenarios.html",
        {
            "req": req,
            "form": form,
            "editing": editing,
            "table": scenario_table(
                scenarios,
                current_revisions=current_revision_ids(capacity_request=req) if scenarios else None,
            ),
            "solving": any(not s.finished for s in scenarios),
            "sealed": req.bids_hidden_from_buyer,
            "awarded": awarded_scenario(capacity_request=req),
            "award_move": REQUEST.decide(req, "award", actor=request_actor(req, user_of(request))),
            "kept_award": kept_input(request, key=f"scenario-award:{req.pk}"),
        },
        status=status,
    )


@org_required(OrgKind.BUYER)
def scenarios(request: HttpRequest, pk: int) -> HttpResponse:
    req = _request(request, pk)
    bidders = scenario_bidders(capacity_request=req)
    if request.method != "POST":
        return _page(request, req, ScenarioForm(bidders=bidders))
    form = ScenarioForm(request.POST, bidders=bidders, instance=AwardScenario(request=req))
    if form.is_valid():
        try:
            scenario = scenario_create(
                capacity_request=req, user=user_of(request), data=form.scenario_data()
            )
        except ValidationError as exc:
            if flashed_or_onto_form(request, form, exc):
                return redirect("evaluation:request-scenarios", pk=req.pk)
        else:
            messages.success(request, f"Scenario “{scenario.name}” is queued for solving.")
            return redirect("evaluation:request-scenarios", pk=req.pk)
    return _page(request, req, form, status=400)


@org_required(OrgKind.BUYER)
def scenario_edit(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    req = _request(request, pk)
    scenario = scenario_get(capacity_request=req, pk=sid)
    bidders = scenario_bidders(capacity_request=req)
    # The form works on a copy: the service compares the stored rules with the new ones.
    form = ScenarioForm(
        request.POST if request.method == "POST" else None,
        bidders=bidders,
        instance=copy.copy(scenario),
    )
    if request.method != "POST":
        return _page(request, req, form, editing=scenario)
    if form.is_valid():
        try:
            scenario_update(scenario=scenario, user=user_of(request), data=form.scenario_data())
        except ValidationError as exc:
            if flashed_or_onto_form(request, form, exc):
                return redirect("evaluation:request-scenarios", pk=req.pk)
        else:
            messages.success(request, f"Scenario “{scenario.name}” is saved and queued.")
            return redirect("evaluation:request-scenarios", pk=req.pk)
    return _page(request, req, form, editing=scenario, status=400)


@org_required(OrgKind.BUYER)
@require_POST
def scenario_solve(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    req = _request(request, pk)
    scenario = scenario_get(capacity_request=req, pk=sid)
    try:
        scenario_solve_queue(scenario=scenario, user=user_of(request))
    except ValidationError as exc:
        for message in exc.messages:
            messages.error(request, message)
    else:
        messages.success(request, f"Scenario “{scenario.name}” is queued for solving.")
    return redirect("evaluation:request-scenarios", pk=req.pk)


@org_required(OrgKind.BUYER)
@require_POST
def scenario_award_view(request: HttpRequest, pk: int, sid: int) -> HttpResponse:
    req = _request(request, pk)
    scenario = scenario_get(capacity_request=req, pk=sid)
    justification = request.POST.get("justification", "")[:4000]
    try:
        award = scenario_award(
            scenario=scenario, user=user_of(request), justification=justification
        )
    except ValidationError as exc:
        flash_errors(request, exc)
        keep_input(
            request,
            key=f"scenario-award:{req.pk}",
            data={"scenario": str(scenario.pk), "justification": justification},
        )
        return redirect("evaluation:request-scenarios", pk=req.pk)
    count = award.reservations.count()
    messages.success(
        request,
        f"Awarded “{award.scenario_name}”: {count} reservation{'s' if count != 1 else ''}, one "
        "per lot and provider. Each waits for its burn-in evidence and your acceptance.",
    )
    return redirect("bids:request-detail", pk=req.pk)


@org_required(OrgKind.BUYER)
def scenarios_xlsx(request: HttpRequest, pk: int) -> HttpResponse:
    req = _request(request, pk)
    if req.bids_hidden_from_buyer:
        raise Http404
    body = scenarios_xlsx_bytes(
        capacity_request=req, scenarios=list(scenario_list(capacity_request=req))
    )
    response = HttpResponse(body, content_type=XLSX_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{scenarios_filename(req)}"'
    return response
