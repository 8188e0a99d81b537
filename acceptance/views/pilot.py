"""Pilot pages: the list, one pilot with its figures, evidence and checks, and the evidence
moves. Thin: the pilot selectors read (the buyer and the invited provider alone), the burn-in
services write. The invitation is made from the comparison page (evaluation)."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from acceptance.models import BurnInRun, Evidence, Pilot
from acceptance.pilot_lifecycle import PilotCase, pilot_decisions
from acceptance.selectors import burnin as burnin_sel
from acceptance.selectors import pilot as sel
from acceptance.views.evidence import RunOwner, org_ids, page_context
from bids.models import BidRevision
from orgs.access import active_org, get_for_acting_org, org_required

PAGE_SIZE = 25


@org_required()
@require_GET
def pilot_list(request: HttpRequest) -> HttpResponse:
    page = Paginator(sel.pilot_list(org_ids=org_ids(request)), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return render(request, "acceptance/pilot/list.html", {"page": page})


def pilot_page(request: HttpRequest, pilot: Pilot, **forms: Any) -> HttpResponse:
    run = sel.pilot_run(pilot)
    org = active_org(request)
    moves = pilot_decisions(PilotCase(pilot.bid, pilot), user=request.user)
    revision = BidRevision.objects.filter(
        bid=pilot.bid, number=pilot.bid.latest_revision_number
    ).first()
    evidence = list(burnin_sel.evidence_list(run=run))
    context = {
        "pilot": pilot,
        "run": run,
        "is_buyer": sel.is_buyer_of_pilot(pilot, org.pk if org else None),
        "figures": sel.figure_rows(
            pilot, revision, evidence, sel.acknowledged_floors([pilot.bid_id]).get(pilot.bid_id)
        ),
        "evidence": evidence,
        "groups": burnin_sel.check_groups(run=run),
        "status": burnin_sel.run_status(run=run, evidence=evidence),
        "can_change": moves["evidence"].allowed,
        "closed_reason": "" if moves["evidence"].allowed else moves["evidence"].reason,
        **page_context(OWNER, run, **forms),
    }
    return render(request, "acceptance/pilot/detail.html", context)


@org_required()
@require_GET
def pilot_detail(request: HttpRequest, pk: int) -> HttpResponse:
    # A member of both parties' organisations is switched to the one the pilot is for.
    pilot = get_for_acting_org(
        request, lambda org: sel.pilot_get(org_ids=[org.pk] if org else [], pk=pk)
    )
    return pilot_page(request, pilot)


def _run_page(request: HttpRequest, run: BurnInRun, **forms: Any) -> HttpResponse:
    assert run.pilot is not None  # a pilot's run, read through `_run_get`
    return pilot_page(request, run.pilot, **forms)


def _run_get(ids: list[int], pk: int) -> BurnInRun:
    """The run of pilot `pk`, holding the pilot as `pilot_get` read it."""
    pilot = sel.pilot_get(org_ids=ids, pk=pk)
    run = sel.pilot_run(pilot)
    run.pilot = pilot
    return run


def _evidence_get(ids: list[int], pk: int) -> Evidence:
    return sel.pilot_evidence_get(org_ids=ids, pk=pk)


def _pilot_pk(run: BurnInRun) -> int:
    assert run.pilot_id is not None  # the selectors read pilots' runs and evidence only
    return run.pilot_id


#: A pilot's run: its page, upload, recheck and status URLs take the pilot's pk.
OWNER = RunOwner(
    urls=RunOwner.url_names("pilots", page="detail", run_prefix=""),
    run_get=_run_get,
    evidence_get=_evidence_get,
    page_pk=_pilot_pk,
    page=_run_page,
)
