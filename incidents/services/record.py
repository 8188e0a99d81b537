"""The incident record: the change log (two-party: one party proposes, the other approves or
declines; only an approved change is applied) and the provider's repair estimate (every revision
kept, the buyer notified). Keyword-only writes, each with an audit entry."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.http import Http404
from django.utils import timezone

from core.errors import Conflict, ServiceError
from incidents.lifecycle import actor_party, incident_move, require_other_party
from incidents.models import (
    CauseClass,
    ChangeKind,
    ChangeLogEntry,
    ChangeStatus,
    Confidence,
    Incident,
    IncidentEvidence,
    RepairEstimate,
)
from incidents.notices import repair_estimate_notify
from incidents.services import _record

MAX_PARTS = 50
MAX_PART_CHARS = 200


def _evidence_rows(incident: Incident, ids: Iterable[Any]) -> list[IncidentEvidence]:
    wanted: set[int] = set()
    for value in ids:
        try:
            wanted.add(int(value))
        except (TypeError, ValueError):
            raise ValidationError(
                {"evidence": [f"“{value}” is not an evidence row of this incident."]}
            ) from None
    rows = list(IncidentEvidence.objects.filter(incident=incident, pk__in=wanted))
    unknown = sorted(wanted - {r.pk for r in rows})
    if unknown:
        raise ValidationError(
            {"evidence": [f"Evidence #{unknown[0]} is not on this incident's record."]}
        )
    return rows


def _entry(incident: Incident, entry: ChangeLogEntry | int) -> ChangeLogEntry:
    pk = entry.pk if isinstance(entry, ChangeLogEntry) else entry
    try:
        return ChangeLogEntry.objects.select_for_update().get(pk=pk, incident=incident)
    except ChangeLogEntry.DoesNotExist:
        # The change is named in the URL: one of another incident is not found, as any id.
        raise Http404("That change is not on this incident's change log.") from None


@transaction.atomic
def change_propose(
    *,
    incident: Incident,
    user: User,
    kind: str,
    what: str,
    checks_rerun: str = "",
    evidence: Iterable[Any] = (),
    now: datetime | None = None,
) -> ChangeLogEntry:
    """One party proposes a configuration change or a workaround; the other party decides."""
    incident_move(incident, "change_propose", user=user)
    errors: dict[str, list[str]] = {}
    if kind not in ChangeKind.values:
        choices = " or ".join(f"“{label}”" for label in ChangeKind.labels)
        errors["kind"] = [f"“{kind}” is not a kind of change: choose {choices}."]
    if not what.strip():
        errors["what"] = ["Say what changes (the setting, the node, the value before and after)."]
    if errors:
        raise ValidationError(errors)
    rows = _evidence_rows(incident, evidence)
    entry = ChangeLogEntry.objects.create(
        incident=incident,
        kind=kind,
        what=what.strip(),
        checks_rerun=checks_rerun.strip(),
        proposed_party=actor_party(incident, user=user),
        proposed_by=user,
        proposed_at=now or timezone.now(),
    )
    entry.evidence.set(rows)
    _record(
        incident,
        "incident.change.propose",
        user,
        after={"change": entry.pk, "kind": kind, "what": entry.what, "checks": entry.checks_rerun},
    )
    return entry


@transaction.atomic
def change_decide(
    *,
    incident: Incident,
    user: User,
    entry: ChangeLogEntry | int,
    approve: bool,
    note: str = "",
    now: datetime | None = None,
) -> ChangeLogEntry:
    """The other party approves or declines (with a reason) a proposed change; the proposer's
    own party never can."""
    row = _entry(incident, entry)
    name = "change_approve" if approve else "change_decline"
    party = require_other_party(incident, name, proposed_party=row.proposed_party, user=user)
    if row.status != ChangeStatus.PROPOSED:
        by = row.decided_by.get_username() if row.decided_by else "?"
        raise ServiceError(
            f"This change is already {row.status} (by {by}, the {row.decided_party})."
        )
    if not approve and not note.strip():
        raise ValidationError({"note": ["Say why you decline the change; it is on the record."]})
    row.status = ChangeStatus.APPROVED if approve else ChangeStatus.DECLINED
    row.decided_party, row.decided_by = party, user
    row.decided_at = now or timezone.now()
    row.decision_note = note.strip()
    row.save(update_fields=["status", "decided_party", "decided_by", "decided_at", "decision_note"])
    _record(
        incident,
        f"incident.change.{'approve' if approve else 'decline'}",
        user,
        before={"change": row.pk, "status": ChangeStatus.PROPOSED},
        after={"change": row.pk, "status": row.status, "proposed_by": row.proposed_party},
        reason=row.decision_note,
    )
    return row


@transaction.atomic
def change_apply(
    *,
    incident: Incident,
    user: User,
    entry: ChangeLogEntry | int,
    checks_rerun: str = "",
    evidence: Iterable[Any] = (),
    now: datetime | None = None,
) -> ChangeLogEntry:
    """Record an approved change as applied, with the checks rerun after it."""
    incident_move(incident, "change_apply", user=user)
    row = _entry(incident, entry)
    label = row.get_kind_display().lower()
    if row.status == ChangeStatus.PROPOSED:
        raise Conflict(
            f"A {label} is applied only once approved: the {row.other_party} has not approved "
            "it yet."
        )
    if row.status == ChangeStatus.DECLINED:
        raise Conflict(f"This {label} was declined by the {row.decided_party}; propose anew.")
    if row.status == ChangeStatus.APPLIED:
        raise Conflict(f"This {label} is already recorded as applied.")
    rows = _evidence_rows(incident, evidence)
    row.status, row.applied_by, row.applied_at = ChangeStatus.APPLIED, user, now or timezone.now()
    if checks_rerun.strip():
        row.checks_rerun = checks_rerun.strip()
    row.save(update_fields=["status", "applied_by", "applied_at", "checks_rerun"])
    row.evidence.add(*rows)
    _record(
        incident,
        "incident.change.apply",
        user,
        before={"change": row.pk, "status": ChangeStatus.APPROVED},
        after={"change": row.pk, "status": row.status, "checks": row.checks_rerun},
    )
    return row


def _parts(parts: str | Iterable[str]) -> list[str]:
    items = parts.splitlines() if isinstance(parts, str) else list(parts)
    cleaned = [str(p).strip() for p in items if str(p).strip()]
    if len(cleaned) > MAX_PARTS:
        raise ValidationError({"parts": [f"At most {MAX_PARTS} parts, one a line."]})
    for number, part in enumerate(cleaned, start=1):
        if len(part) > MAX_PART_CHARS:
            raise ValidationError(
                {"parts": [f"Part on line {number} is longer than {MAX_PART_CHARS} characters."]}
            )
    return cleaned


@transaction.atomic
def estimate_post(
    *,
    incident: Incident,
    user: User,
    cause_class: str,
    eta: datetime | None,
    confidence: str,
    parts: str | Iterable[str] = (),
    note: str = "",
    now: datetime | None = None,
) -> RepairEstimate:
    """The provider's repair estimate in the agreed format; a new post is a new revision."""
    incident = Incident.objects.select_for_update().get(pk=incident.pk)
    incident_move(incident, "estimate", user=user)
    now = now or timezone.now()
    errors: dict[str, list[str]] = {}
    if cause_class not in CauseClass.values:
        errors["cause_class"] = [
            f"“{cause_class or '(empty)'}” is not a cause class: choose one of "
            + ", ".join(CauseClass.labels)
            + "."
        ]
    if confidence not in Confidence.values:
        errors["confidence"] = ["Choose the confidence: low, medium or high."]
    if eta is None:
        errors["eta"] = ["Give the ETA in UTC (YYYY-MM-DD HH:MM)."]
    elif eta < now:
        errors["eta"] = [
            f"The ETA {eta:%Y-%m-%d %H:%M} UTC is in the past (it is now {now:%Y-%m-%d %H:%M} UTC)."
        ]
    try:
        cleaned = _parts(parts)
    except ValidationError as exc:
        errors.update(exc.message_dict)
    if errors:
        raise ValidationError(errors)
    assert eta is not None
    previous = incident.estimates.order_by("-revision").first()
    top = incident.estimates.aggregate(top=Max("revision"))["top"] or 0
    estimate = RepairEstimate.objects.create(
        incident=incident,
        revision=top + 1,
        cause_class=cause_class,
        parts=cleaned,
        eta=eta,
        confidence=confidence,
        note=note.strip(),
        posted_by=user,
        posted_at=now,
    )
    _record(
        incident,
        "incident.estimate",
        user,
        before=_estimate_json(previous) if previous else {},
        after=_estimate_json(estimate),
        reason=estimate.note,
    )
    repair_estimate_notify(estimate=estimate)
    return estimate


def _estimate_json(estimate: RepairEstimate) -> dict[str, Any]:
    return {
        "revision": estimate.revision,
        "cause_class": estimate.cause_class,
        "parts": estimate.parts,
        "eta": estimate.eta.isoformat(),
        "confidence": estimate.confidence,
    }
