"""Burn-in writes: runs, evidence upload (bytes first), parsing, and the per-run re-check.

Every evidence change moves the run's `evidence_version` and queues one re-check after commit;
a re-check that finishes after a newer change is discarded, so stale rows never become current.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from acceptance.audit import record_on_pilot, record_on_reservation
from acceptance.canary_lifecycle import canary_move
from acceptance.lifecycle import case_for, reservation_move
from acceptance.models import (
    BurnInRun,
    Canary,
    Check,
    ChecksState,
    Evidence,
    EvidenceState,
    FindingExplanation,
    Pilot,
    Reservation,
)
from acceptance.models.burnin import WHOLE_ALLOCATION
from acceptance.notices import acceptance_requested_notify
from acceptance.pilot_lifecycle import PilotCase, pilot_move
from acceptance.services.evidence_items import evidence_item
from acceptance.services.pilot import pilot_clear_figures, pilot_store_figures
from acceptance.signals import canary_checked
from core.errors import Conflict
from core.queueing import send_task
from core.uploads import check_upload, sha256_of
from engine.evidence.checks import EvidenceItem, evidence_item_from_text, gate, run_checks
from engine.evidence.checks.findings import Explanation
from engine.evidence.parsers import KINDS, to_json
from engine.evidence.parsers.restore import FORMAT

NODE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]*(\+[A-Za-z0-9][A-Za-z0-9._:-]*)*$")
WHOLE_ALLOCATION_WORDS = {"", "all", "whole", WHOLE_ALLOCATION, "whole-allocation", "allocation"}


@dataclass(frozen=True)
class EvidenceUpload:
    evidence: Evidence
    duplicate: bool


def _require_pending(reservation: Reservation) -> None:
    if not reservation.is_pending:
        raise Conflict(
            f"The reservation is {reservation.get_status_display().lower()}; "
            "its burn-in evidence is closed."
        )


def normalise_node(label: str) -> str:
    """'' for the whole allocation; a node name; or a subset 'node-a+node-b' (sorted, unique)."""
    cleaned = re.sub(r"\s*\+\s*", "+", (label or "").strip())
    if cleaned.lower() in WHOLE_ALLOCATION_WORDS:
        return ""
    if len(cleaned) > 200 or not NODE_RE.match(cleaned):
        raise ValidationError(
            {
                "node": [
                    "Use a node name (gpu-a01), node names joined with + for a subset run "
                    "(gpu-a01+gpu-a02), or leave empty for the whole allocation."
                ]
            }
        )
    return "+".join(sorted(set(cleaned.split("+"))))


def _require_move(reservation: Reservation, name: str, user: User) -> None:
    """The reservation's table: which party and role may start runs and change evidence."""
    _require_pending(reservation)
    reservation_move(case_for(reservation), name, user=user)


def _require_run_open(run: BurnInRun, user: User, *, move: str | None) -> None:
    """A burn-in run asks its reservation's table for `move` (None: only that the reservation
    is pending); a pilot's or a canary's run asks its own table for its one evidence move."""
    if run.canary_id is not None:
        canary = Canary.objects.select_related("reservation__request", "reservation__bid").get(
            pk=run.canary_id
        )
        canary_move(canary, "evidence", user=user)
    elif run.pilot_id is not None:
        pilot = Pilot.objects.select_related("bid__request").get(pk=run.pilot_id)
        pilot_move(PilotCase(pilot.bid, pilot), "evidence", user=user)
    elif move is None:
        _require_pending(run.burnin_reservation)
    else:
        _require_move(run.burnin_reservation, move, user)


def evidence_upload_check(*, run: BurnInRun, user: User) -> None:
    """Whether `user` may add evidence to `run` now, before any file is read: the refusal is
    about the party or the run's state, never about a file."""
    _require_run_open(run, user, move="evidence")


@transaction.atomic
def run_create(*, reservation: Reservation, user: User, label: str = "") -> BurnInRun:
    _require_move(reservation, "start_run", user)
    label = label.strip() or f"Burn-in run {reservation.runs.count() + 1}"
    run = BurnInRun.objects.create(reservation=reservation, label=label[:120], created_by=user)
    _record(run, "run_create", user, {"run": run.pk, "label": run.label})
    return run


def _record(run: BurnInRun, verb: str, user: User | None, after: dict[str, Any]) -> None:
    """On the trail of the run's reservation ("burnin.<verb>"), pilot ("pilot.<verb>") or, for
    a canary, of the reservation it runs on ("canary.<verb>")."""
    if run.canary_id is not None:
        canary = Canary.objects.select_related("reservation__request", "reservation__bid").get(
            pk=run.canary_id
        )
        record_on_reservation(
            reservation=canary.reservation, action=f"canary.{verb}", user=user,
            obj_key=f"canary:{canary.pk}", after=after,
        )  # fmt: skip
    elif run.pilot_id is not None:
        pilot = Pilot.objects.select_related("bid__request").get(pk=run.pilot_id)
        record_on_pilot(pilot=pilot, action=f"pilot.{verb}", user=user, after=after)
    else:
        record_on_reservation(
            reservation=run.burnin_reservation, action=f"burnin.{verb}", user=user, after=after
        )


def _file(evidence: Evidence) -> dict[str, Any]:
    return {
        "run": evidence.run_id,
        "file": evidence.original_name,
        "node": evidence.node,
        "sha256": evidence.sha256,
    }


def evidence_changed(run: BurnInRun) -> None:
    """A new evaluation is due: bump the version and, unless a re-check is already queued and
    not yet started, queue one once this commits. A queued flag older than the time limit is
    taken as lost (its task never ran) and queued again."""
    now = timezone.now()
    BurnInRun.objects.filter(pk=run.pk).update(
        evidence_version=F("evidence_version") + 1, checks_state=ChecksState.RUNNING
    )
    lost = now - timedelta(seconds=settings.JOB_TIME_LIMIT_SECONDS)
    claimed = (
        BurnInRun.objects.filter(pk=run.pk)
        .filter(Q(recheck_queued_at__isnull=True) | Q(recheck_queued_at__lt=lost))
        .update(recheck_queued_at=now)
    )
    run.refresh_from_db(fields=["evidence_version", "checks_state", "recheck_queued_at"])
    if not claimed:
        return  # the queued re-check will read this version when it starts
    from acceptance.tasks import recheck_run

    run_id = run.pk
    transaction.on_commit(
        lambda: send_task(recheck_run, run_id, what=f"The re-check of burn-in run #{run_id}")
    )


def _queue_parse(evidence: Evidence) -> None:
    from acceptance.tasks import parse_evidence

    evidence_id = evidence.pk
    transaction.on_commit(
        lambda: send_task(parse_evidence, evidence_id, what=f"Evidence file #{evidence_id}")
    )


@transaction.atomic
def evidence_upload(
    *, run: BurnInRun, user: User, upload: UploadedFile, node: str = "", kind: str | None = None
) -> EvidenceUpload:
    """Store the bytes and their SHA-256, then queue parsing. A file already in the run for the
    same node label is not stored again: the existing evidence comes back, `duplicate=True`."""
    _require_run_open(run, user, move="evidence")
    check_upload(upload, limit=settings.EVIDENCE_MAX_BYTES)  # an empty gzip too
    if kind and kind not in KINDS:
        raise ValidationError({"kind": [f"Choose one of: {', '.join(KINDS)}."]})
    node = normalise_node(node)
    sha = sha256_of(upload)
    existing = Evidence.objects.filter(run=run, sha256=sha, node=node).first()
    if existing is not None:
        if existing.withdrawn_at is not None:
            existing.withdrawn_at, existing.withdrawn_by = None, None
            existing.save(update_fields=["withdrawn_at", "withdrawn_by", "state_changed_at"])
            evidence_changed(run)
            _record(run, "evidence_restore", user, _file(existing))
        return EvidenceUpload(existing, duplicate=True)
    evidence = Evidence(
        run=run, node=node, kind=kind or "", kind_given=bool(kind), uploaded_by=user
    )
    # The bytes reach storage before the row exists and long before any parser sees them.
    evidence.store(upload, sha256=sha)
    try:
        with transaction.atomic():
            evidence.save()
    except IntegrityError:  # the same file arrived concurrently
        return EvidenceUpload(Evidence.objects.get(run=run, sha256=sha, node=node), duplicate=True)
    _queue_parse(evidence)
    evidence_changed(run)
    _record(run, "evidence_upload", user, _file(evidence))
    return EvidenceUpload(evidence, duplicate=False)


def run_explanations(run: BurnInRun) -> dict[str, Explanation]:
    """The buyer's explanations of findings on this run, the latest per finding."""
    out: dict[str, Explanation] = {}
    for e in FindingExplanation.objects.filter(run=run).select_related("by").order_by("at", "pk"):
        by = (e.by.get_full_name() or e.by.username) if e.by else "a former user"
        out[e.key] = Explanation(key=e.key, fingerprint=e.fingerprint, reason=e.reason, by=by)
    return out


def evidence_parse(*, evidence_id: int) -> Evidence:
    """Parse one stored file. Running it twice parses the same bytes to the same result."""
    with transaction.atomic():
        evidence = Evidence.objects.select_for_update().get(pk=evidence_id)
        evidence.state = EvidenceState.PARSING
        evidence.attempts += 1
        evidence.save(update_fields=["state", "attempts", "state_changed_at"])
    data = evidence.read_bytes()
    item = evidence_item_from_text(
        ref=evidence.ref,
        node=evidence.node or None,
        text=data,
        kind=evidence.kind if evidence.kind_given else None,
    )
    with transaction.atomic():
        evidence = Evidence.objects.select_for_update().select_related("run").get(pk=evidence_id)
        if item.parsed is not None:
            evidence.state = EvidenceState.PARSED
            evidence.kind = item.kind
            evidence.parsed = to_json(item.parsed)
            evidence.parsed_format = FORMAT
            evidence.error, evidence.error_line = "", None
        else:
            evidence.state = EvidenceState.UNREADABLE
            evidence.kind = "" if item.kind == "unknown" else item.kind
            # Refused by these parsers: a re-check under other ones reads the file again.
            evidence.parsed, evidence.parsed_format = None, FORMAT
            evidence.error = item.error or "unreadable"
            evidence.error_line = item.error_line
        evidence.save()
        evidence_changed(evidence.run)
    return evidence


def evidence_mark_error(*, evidence_id: int, error: BaseException) -> None:
    """A crash while processing: say so on the file (never leave it silently 'parsing')."""
    with transaction.atomic():
        # Ordered by pk: the default order goes through the run's nullable reservation, and an
        # outer join cannot be locked.
        found = (
            Evidence.objects.select_for_update()
            .select_related("run")
            .filter(pk=evidence_id)
            .order_by("pk")
            .first()
        )
        if found is None:
            return
        found.state = EvidenceState.ERROR
        found.error = f"Processing failed ({type(error).__name__}: {str(error)[:300]}). Retry it."
        found.error_line = None
        found.save(update_fields=["state", "error", "error_line", "state_changed_at"])
        evidence_changed(found.run)


@transaction.atomic
def evidence_retry(*, evidence: Evidence, user: User) -> Evidence:
    _require_run_open(evidence.run, user, move=None)
    if evidence.withdrawn_at is not None:
        raise Conflict(
            f"{evidence.original_name} was withdrawn from the checks; upload it again to use it."
        )
    evidence.state = EvidenceState.QUEUED
    evidence.error, evidence.error_line = "", None
    evidence.save(update_fields=["state", "error", "error_line", "state_changed_at"])
    _queue_parse(evidence)
    evidence_changed(evidence.run)
    _record(evidence.run, "evidence_retry", user, _file(evidence))
    return evidence


@transaction.atomic
def evidence_withdraw(*, evidence: Evidence, user: User) -> Evidence:
    """Take a file out of the checks (a wrong or superseded upload); it stays listed and stored."""
    _require_run_open(evidence.run, user, move="evidence")
    if evidence.withdrawn_at is None:
        evidence.withdrawn_at, evidence.withdrawn_by = timezone.now(), user
        evidence.save(update_fields=["withdrawn_at", "withdrawn_by", "state_changed_at"])
        evidence_changed(evidence.run)
        _record(evidence.run, "evidence_withdraw", user, _file(evidence))
    return evidence


@transaction.atomic
def run_request_recheck(*, run: BurnInRun, user: User) -> BurnInRun:
    _require_run_open(run, user, move=None)
    evidence_changed(run)
    _record(run, "recheck", user, {"run": run.pk, "label": run.label})
    return run


@transaction.atomic
def run_recheck_for_parsers(*, run: BurnInRun) -> None:
    """The platform's own re-check once its parsers have changed: no party asked for it, so the
    record names the system, with the parsers' format the files will be read under."""
    evidence_changed(run)
    _record(run, "recheck", None, {"run": run.pk, "label": run.label, "parsers": FORMAT})


def _check_rows(run: BurnInRun, version: int, results: list[Any]) -> list[Check]:
    ids = {e.ref: e.pk for e in run.evidence.only("pk", "original_name")}
    return [
        Check(
            run=run,
            version=version,
            position=position,
            name=r.name[:200],
            group=r.group[:40],
            status=r.status,
            measured=r.measured,
            expected=r.expected,
            evidence_id=ids.get(r.evidence_ref or ""),
            line=r.line,
            mandatory=r.mandatory,
            message=r.message,
            node=(r.node or "")[:200],
            finding_key=r.finding.key[:300] if r.finding else "",
            finding_fingerprint=r.finding.fingerprint if r.finding else "",
            finding_evidence=[ids[ref] for ref in r.finding.refs if ref in ids]
            if r.finding
            else [],
        )
        for position, r in enumerate(results)
    ]


def run_recheck(*, run_id: int) -> BurnInRun:
    """Evaluate the run's current evidence against its owner's fixture version (a canary's
    scoped to its nodes)."""
    # Started: a change from now on queues its own re-check (cleared before reading, so a
    # change made while this one parses is never lost).
    BurnInRun.objects.filter(pk=run_id).update(
        recheck_queued_at=None, checks_started_at=timezone.now()
    )
    run = BurnInRun.objects.select_related(
        "reservation__fixture_version",
        "reservation__lot",
        "pilot__fixture_version",
        "canary__reservation__fixture_version",
        "canary__reservation__lot",
    ).get(pk=run_id)
    if run.checks_state == ChecksState.DONE and run.checked_version == run.evidence_version:
        return run  # already current: a duplicate delivery, nothing to parse
    version = run.evidence_version
    # `parsed` only for the files this process has not rebuilt yet (evidence_item).
    evidence = list(run.evidence.filter(withdrawn_at__isnull=True).defer("parsed"))
    waiting = not evidence or any(e.in_progress for e in evidence)
    results: list[Any] = []
    items: list[EvidenceItem] = []
    if not waiting:
        items = [evidence_item(e) for e in evidence]
        results = run_checks(run.check_spec(), items, run_explanations(run))
    with transaction.atomic():
        run = BurnInRun.objects.select_for_update().get(pk=run_id)
        if run.evidence_version != version:
            return run  # a newer change queued its own re-check
        if run.checked_version == version and run.checks_state == ChecksState.DONE:
            return run  # this evaluation is already stored (a repeated or duplicate task)
        if waiting:
            # Parsing is still going on; its completion queues the next re-check.
            run.checks_state = ChecksState.WAITING
            run.gate_passed, run.gate_summary = None, ""
            run.save(update_fields=["checks_state", "gate_passed", "gate_summary"])
            if run.pilot_id is not None and not evidence:
                pilot_clear_figures(run=run)  # every file withdrawn: nothing is verified
            return run
        verdict = gate(results)
        run.checks.all().delete()
        Check.objects.bulk_create(_check_rows(run, version, results))
        run.checked_version = version
        run.checks_state = ChecksState.DONE
        run.checks_error = ""
        run.checked_at = timezone.now()
        run.gate_passed = verdict.passed
        run.gate_summary = verdict.summary
        run.save()
        if run.pilot_id is not None:
            pilot_store_figures(run=run, items=items)
        elif run.canary_id is not None:
            canary_checked.send(sender=BurnInRun, canary=run.canary, run=run)
        else:
            acceptance_requested_notify(run=run)
    return run


def run_mark_error(*, run_id: int, error: BaseException) -> None:
    BurnInRun.objects.filter(pk=run_id).update(
        checks_state=ChecksState.ERROR,
        checks_error=f"The check run failed ({type(error).__name__}: {str(error)[:300]}).",
        gate_passed=None,
    )
