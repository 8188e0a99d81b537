"""Failed-run analysis and incident pages. Thin: selectors read, services write."""

from __future__ import annotations

from datetime import UTC
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from acceptance.selectors import burnin as res_sel
from acceptance.views.burnin import reservation_page
from core.web import errors_into_form, flash_errors, keep_input, kept_input
from engine.failures.model import UNNAMED_NODE
from incidents import selectors as sel
from incidents import services
from incidents.forms import (
    AnswerForm,
    DisputeForm,
    FailedRunUploadForm,
    FewerNodesForm,
    IncidentEvidenceForm,
    IncidentOpenForm,
    LostTimeForm,
    SeverityForm,
    SignoffForm,
)
from incidents.lifecycle import INCIDENT, close_decision, incident_actor, item_owner
from incidents.models import FailedRun, FailedRunState, Incident
from incidents.views.record_page import record_context
from orgs.access import active_org, org_required, user_of

# The moves of the severity and acknowledgement sections of the incident page.
ANSWER_MOVES = ["severity_propose", "severity_accept", "severity_reject", "acknowledge",
                "dispute_incident"]  # fmt: skip


def _org_ids(request: HttpRequest) -> list[int]:
    org = active_org(request)
    return [org.pk] if org is not None else []


@org_required()
@require_POST
def failed_run_upload(request: HttpRequest, pk: int) -> HttpResponse:
    reservation = res_sel.reservation_get(org_ids=_org_ids(request), pk=pk)
    form = FailedRunUploadForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            run = services.failed_run_upload(
                reservation=reservation,
                user=user_of(request),
                uploads=form.cleaned_data["bundle"],
                rank_map=form.cleaned_data["rank_map"],
                world_size=form.cleaned_data["world_size"],
                label=form.cleaned_data["label"],
            )
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            started = (
                "it waits for your organisation's earlier analysis to end (one at a time each)"
                if run.state == FailedRunState.WAITING
                else "the analysis has started"
            )
            messages.success(request, f"Stored {run.label}; {started}.")
            return redirect("incidents:failed-run-detail", pk=run.pk)
    return reservation_page(request, reservation, panel_forms={"failed_run": form})


def _run_page(request: HttpRequest, run: FailedRun, **forms: Any) -> HttpResponse:
    incident = Incident.objects.filter(failed_run=run).first()
    proposal = services.propose(run.analysis) if run.analysis else None
    context = {
        "run": run,
        "reservation": run.reservation,
        "files": list(run.files.all()),
        "incident": incident,
        "proposal": proposal,
        "open_form": forms.get("open_form")
        or IncidentOpenForm(initial={"severity": proposal.severity if proposal else "S1"}),
        # Or attach the analysis to an open incident of the reservation that has none.
        "attachable": sel.attachable_incidents(run) if incident is None else [],
        "record_gaps": sel.failure_record_gaps(run),
        "unnamed_node": UNNAMED_NODE,  # as the analysis words a node no file names
        **sel.analysis_view(
            run, page=request.GET.get("page"), first=request.GET.get("first") or "ending"
        ),
    }
    return render(request, "incidents/failed_run_detail.html", context)


@org_required()
@require_GET
def failed_run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return _run_page(request, sel.failed_run_get(org_ids=_org_ids(request), pk=pk))


@org_required()
@require_GET
def failed_run_status(request: HttpRequest, pk: int) -> HttpResponse:
    run = sel.failed_run_get(org_ids=_org_ids(request), pk=pk)
    return JsonResponse(
        {
            "state": run.state,
            "label": run.get_state_display(),
            "error": run.error,
            "busy": run.in_progress,
        }
    )


@org_required()
@require_POST
def failed_run_retry(request: HttpRequest, pk: int) -> HttpResponse:
    run = sel.failed_run_get(org_ids=_org_ids(request), pk=pk)
    try:
        services.failed_run_retry(failed_run=run, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, "The analysis is queued again.")
    return redirect("incidents:failed-run-detail", pk=pk)


def _download(field: Any, name: str) -> FileResponse:
    return FileResponse(
        field.open("rb"),
        as_attachment=True,
        filename=name,
        content_type="application/octet-stream",
    )


@login_required
@require_GET
def failed_run_file(request: HttpRequest, pk: int) -> FileResponse:
    if active_org(request) is None:
        raise Http404
    row = sel.failed_run_file_get(org_ids=_org_ids(request), pk=pk)
    return _download(row.file, row.original_name)


@org_required()
@require_POST
def incident_open(request: HttpRequest, pk: int) -> HttpResponse:
    run = sel.failed_run_get(org_ids=_org_ids(request), pk=pk)
    form = IncidentOpenForm(request.POST)
    if form.is_valid():
        try:
            incident = services.incident_open(
                failed_run=run,
                user=user_of(request),
                severity=form.cleaned_data["severity"],
                reason=form.cleaned_data["reason"],
            )
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(request, f"Incident #{incident.pk} is open; the clocks are running.")
            return redirect("incidents:incident-detail", pk=incident.pk)
    return _run_page(request, run, open_form=form)


def _answer_reason(form: AnswerForm) -> str:
    if not form.is_valid():
        raise ValidationError({"reason": [f"Why: {e}" for e in form.errors.get("reason", [])]})
    return str(form.cleaned_data["reason"])


def _keep_reason(request: HttpRequest, *, pk: int, answer: str) -> None:
    """A refused answer's reason, as typed, for the incident page to fill back in."""
    keep_input(request, key=f"incident:{pk}", data={answer: request.POST.get("reason", "")})


def _incident_page(request: HttpRequest, incident: Incident, **forms: Any) -> HttpResponse:
    evidence = list(incident.evidence.select_related("uploaded_by").order_by("pk"))
    actor = incident_actor(incident, request.user)
    checklist = sel.checklist_states(incident, evidence)
    changes = sel.severity_changes(incident=incident)
    signed = set(incident.signoffs.values_list("key", flat=True))
    context = {
        "incident": incident,
        "kept": kept_input(request, key=f"incident:{incident.pk}"),
        # Which items this user may sign off, and which signed items they may dispute.
        "may_sign": {s.key for s in checklist if item_owner(s.key) in actor.roles},
        "may_dispute": {k for k in signed if actor.roles and item_owner(k) not in actor.roles},
        "owners": {s.key: item_owner(s.key) for s in checklist},
        "disputes": list(incident.disputes.select_related("by")),
        "close": close_decision(incident, actor=actor),
        "moves": INCIDENT.decisions(incident, actor=actor, names=["responded", "restored"]),
        "reservation": incident.reservation,
        "clocks": sel.clock_rows(incident, now=timezone.now()),
        "window": sel.window_view(incident),
        "checklist": checklist,
        "evidence": evidence,
        "lost": sel.lost_time(incident),
        "partial": sel.partial_lost_time(incident) if incident.severity == "S3" else None,
        "degraded": sel.degraded_view(incident),
        "affected_nodes": sel.repaired_nodes(incident),
        "fewer_form": forms.get("fewer_form")
        or FewerNodesForm(
            initial={"at": incident.fewer_nodes_at, "continuing_nodes": incident.continuing_nodes}
        ),
        "fewer_move": INCIDENT.decide(incident, "fewer_nodes", actor=actor),
        "severity_form": forms.get("severity_form")
        or SeverityForm(initial={"severity": incident.severity}),
        "severity_history": sel.severity_history(incident, changes),
        "pending_change": next((c for c in changes if c.status == "pending"), None),
        "breaches": sel.breaches_list(incident=incident),
        "standing": sel.incident_standing(incident, now=timezone.now()),
        "severity_moves": INCIDENT.decisions(incident, actor=actor, names=ANSWER_MOVES),
        "my_party": next(iter(sorted(actor.roles)), ""),
        "evidence_form": forms.get("evidence_form") or IncidentEvidenceForm(),
        "times_form": forms.get("times_form")
        or LostTimeForm(
            initial={
                "gpus": incident.gpus,
                "failed_at": incident.failed_at,
                "last_checkpoint_at": incident.last_checkpoint_at,
                "revalidated_at": incident.revalidated_at,
                "restarted_at": incident.restarted_at,
            }
        ),
        **record_context(incident, actor=actor, forms=forms),
    }
    return render(request, "incidents/incident_detail.html", context)


def _get_incident(request: HttpRequest, pk: int) -> Incident:
    return sel.incident_get(org_ids=_org_ids(request), pk=pk)


@org_required()
@require_GET
def incident_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return _incident_page(request, _get_incident(request, pk))


@org_required()
@require_POST
def incident_severity(request: HttpRequest, pk: int) -> HttpResponse:
    """Propose a severity change; it applies once the other party accepts."""
    incident = _get_incident(request, pk)
    form = SeverityForm(request.POST)
    if form.is_valid():
        try:
            change = services.incident_severity_propose(
                incident=incident, user=user_of(request), **form.cleaned_data
            )
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(
                request,
                f"{change.to_severity} proposed; the incident stays {change.from_severity}, with "
                f"its clocks, until the {change.other_party} accepts.",
            )
            return redirect("incidents:incident-detail", pk=pk)
    return _incident_page(request, incident, severity_form=form)


@org_required()
@require_POST
def incident_severity_answer(request: HttpRequest, pk: int, answer: str) -> HttpResponse:
    """Accept or reject the other party's proposed severity (an approver or admin)."""
    incident = _get_incident(request, pk)
    form = AnswerForm(request.POST)
    try:
        reason = _answer_reason(form)
        if answer == "accept":
            change = services.incident_severity_accept(
                incident=incident, user=user_of(request), reason=reason
            )
            messages.success(request, f"Accepted: the incident is now {change.to_severity}.")
        elif answer == "reject":
            change = services.incident_severity_reject(
                incident=incident, user=user_of(request), reason=reason
            )
            messages.success(request, f"Rejected: the incident stays {change.from_severity}.")
        else:
            raise Http404
    except ValidationError as exc:
        flash_errors(request, exc)
        _keep_reason(request, pk=pk, answer=answer)
    return redirect("incidents:incident-detail", pk=pk)


@org_required()
@require_POST
def incident_answer(request: HttpRequest, pk: int, answer: str) -> HttpResponse:
    """Acknowledge or dispute the other party's incident."""
    incident = _get_incident(request, pk)
    form = AnswerForm(request.POST)
    try:
        reason = _answer_reason(form)
        if answer == "acknowledge":
            services.incident_acknowledge(incident=incident, user=user_of(request))
            messages.success(request, "Acknowledged: the incident counts toward availability.")
        elif answer == "dispute":
            services.incident_dispute_opening(
                incident=incident, user=user_of(request), reason=reason
            )
            messages.success(request, "Disputed: the delivery figures show both readings.")
        else:
            raise Http404
    except ValidationError as exc:
        flash_errors(request, exc)
        _keep_reason(request, pk=pk, answer=answer)
    return redirect("incidents:incident-detail", pk=pk)


@org_required()
@require_POST
def incident_mark(request: HttpRequest, pk: int, what: str) -> HttpResponse:
    incident = _get_incident(request, pk)
    try:
        services.incident_mark(incident=incident, user=user_of(request), what=what)
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, f"{what.capitalize()} recorded at {timezone.now():%H:%M} UTC.")
    return redirect("incidents:incident-detail", pk=pk)


@org_required()
@require_POST
def incident_evidence(request: HttpRequest, pk: int) -> HttpResponse:
    incident = _get_incident(request, pk)
    form = IncidentEvidenceForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            row = services.incident_evidence_upload(
                incident=incident,
                user=user_of(request),
                upload=form.cleaned_data["file"],
                kind=form.cleaned_data["kind"],
                node=form.cleaned_data["node"],
            )
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            if row.ok:
                messages.success(request, f"{row.original_name} is stored and read.")
            else:
                messages.error(
                    request, f"{row.original_name} is stored but unreadable: {row.error}"
                )
            return redirect("incidents:incident-detail", pk=pk)
    return _incident_page(request, incident, evidence_form=form)


@login_required
@require_GET
def incident_evidence_download(request: HttpRequest, pk: int) -> FileResponse:
    if active_org(request) is None:
        raise Http404
    row = sel.incident_evidence_get(org_ids=_org_ids(request), pk=pk)
    return _download(row.file, row.original_name)


@org_required()
@require_POST
def incident_signoff(request: HttpRequest, pk: int) -> HttpResponse:
    incident = _get_incident(request, pk)
    form = SignoffForm(request.POST)
    if form.is_valid():
        try:
            services.incident_signoff(incident=incident, user=user_of(request), **form.cleaned_data)
        except ValidationError as exc:
            flash_errors(request, exc)
        else:
            messages.success(request, "Signed off with your note.")
    else:
        messages.error(request, "Write a note to sign an item off.")
    return redirect("incidents:incident-detail", pk=pk)


@org_required()
@require_POST
def incident_dispute(request: HttpRequest, pk: int) -> HttpResponse:
    incident = _get_incident(request, pk)
    form = DisputeForm(request.POST)
    if form.is_valid():
        try:
            services.incident_dispute(incident=incident, user=user_of(request), **form.cleaned_data)
        except ValidationError as exc:
            flash_errors(request, exc)
        else:
            messages.success(
                request, "Disputed: the item is open again, and your reason is on record."
            )
    else:
        messages.error(request, "Say why you dispute the sign-off.")
    return redirect("incidents:incident-detail", pk=pk)


@org_required()
@require_POST
def incident_times(request: HttpRequest, pk: int) -> HttpResponse:
    incident = _get_incident(request, pk)
    with timezone.override(UTC):
        form = LostTimeForm(request.POST)
        valid = form.is_valid()
    if valid:
        try:
            services.incident_set_times(
                incident=incident, user=user_of(request), **form.cleaned_data
            )
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(request, "Lost-time marks saved.")
            return redirect("incidents:incident-detail", pk=pk)
    return _incident_page(request, incident, times_form=form)


@org_required()
@require_POST
def incident_close(request: HttpRequest, pk: int) -> HttpResponse:
    incident = _get_incident(request, pk)
    try:
        services.incident_close(
            incident=incident, user=user_of(request), confirmed=bool(request.POST.get("confirm"))
        )
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, "Incident closed: every recovery item passed.")
    return redirect("incidents:incident-detail", pk=pk)
