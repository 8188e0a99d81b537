"""Facts both parties stand by: a severity change after opening is one party's proposal until
an approver or admin of the other party accepts it; a clock breach is stored when it is seen and
never taken back; an incident one party opened is acknowledged or disputed by the other.
Keyword-only writes, each on the reservation's audit trail with who and why."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from core.errors import Conflict, ServiceError
from incidents.lifecycle import (
    actor_party,
    incident_move,
    require_answering_party,
)
from incidents.models import ClockBreach, Incident, SeverityChange, SeverityChangeStatus
from incidents.selectors import live_breaches
from incidents.services.opening import check_severity
from incidents.services.records import _record


def _locked(incident: Incident) -> Incident:
    return Incident.objects.select_for_update().select_related("reservation").get(pk=incident.pk)


def _reason(reason: str, *, what: str) -> str:
    text = reason.strip()
    if not text:
        raise ValidationError({"reason": [f"Say why {what}; the reason is on the record."]})
    return text[:2000]


@transaction.atomic
def incident_breaches_record(
    *, incident: Incident, now: datetime | None = None
) -> list[ClockBreach]:
    """Store every clock of the severity in force that has run out by `now` and is not stored
    yet (its deadline, the severity and minutes it ran under). Safe to run again; each move that
    could change the clocks runs it first, and the periodic sweep runs it for open incidents."""
    when = now or timezone.now()
    kept = set(ClockBreach.objects.filter(incident=incident).values_list("clock", flat=True))
    made = []
    for b in live_breaches(incident, now=when):
        if b["clock"] in kept:
            continue
        row, created = ClockBreach.objects.get_or_create(
            incident=incident, clock=b["clock"],
            defaults={"severity": b["severity"], "minutes": b["minutes"], "due_at": b["due_at"],
                      "recorded_at": when},
        )  # fmt: skip
        if created:
            made.append(row)
            _record(
                incident, "incident.breach", None,  # seen by the system, not a person
                after={"clock": row.clock, "severity": row.severity, "minutes": row.minutes,
                       "due_at": row.due_at, "recorded_at": when},
            )  # fmt: skip
    return made


def breaches_sweep(*, now: datetime | None = None) -> int:
    """Record the breaches of every incident whose clocks still run; returns how many new."""
    when = now or timezone.now()
    open_clocks = Incident.objects.filter(closed_at__isnull=True).select_related("reservation")
    return sum(len(incident_breaches_record(incident=i, now=when)) for i in open_clocks)


@transaction.atomic
def incident_severity_propose(
    *, incident: Incident, user: User, severity: str, reason: str, now: datetime | None = None
) -> SeverityChange:
    """One party proposes a new severity with its reason. Nothing moves yet: the severity in
    force keeps its clocks (they can still breach) until the other party accepts."""
    incident = _locked(incident)
    incident_move(incident, "severity_propose", user=user)
    check_severity(severity)
    if severity == incident.severity:
        raise Conflict({"severity": [f"The incident is already {severity}."]})
    if not incident.clocks.get(severity):
        raise ValidationError({"severity": [f"The terms give no {severity} clocks."]})
    text = _reason(reason, what="the severity should change")
    when = now or timezone.now()
    incident_breaches_record(incident=incident, now=when)
    change = SeverityChange.objects.create(
        incident=incident, from_severity=incident.severity, to_severity=severity, reason=text,
        proposed_party=actor_party(incident, user=user), proposed_by=user, proposed_at=when,
    )  # fmt: skip
    _record(
        incident, "incident.severity.propose", user,
        before={"severity": incident.severity},
        after={"proposed": severity, "change": change.pk, "party": change.proposed_party},
        reason=text,
    )  # fmt: skip
    return change


def _pending(incident: Incident) -> SeverityChange:
    change = (
        SeverityChange.objects.select_for_update()
        .filter(incident=incident, status=SeverityChangeStatus.PENDING)
        .first()
    )
    if change is None:
        raise ServiceError("No severity change is waiting for an answer.")
    return change


@transaction.atomic
def incident_severity_accept(
    *, incident: Incident, user: User, reason: str = "", now: datetime | None = None
) -> SeverityChange:
    """An approver or admin of the other party accepts: the breaches already run up under the
    old severity are stored first (they stay), then the agreed severity's clocks apply."""
    incident = _locked(incident)
    incident_move(incident, "severity_accept", user=user)  # party, role, and a change waiting (409)
    change = _pending(incident)
    party = require_answering_party(
        incident, "severity_accept", party=change.proposed_party, user=user
    )
    when = now or timezone.now()
    incident_breaches_record(incident=incident, now=when)
    change.status, change.decided_party, change.decided_by = (
        SeverityChangeStatus.ACCEPTED,
        party,
        user,
    )
    change.decided_at, change.decision_reason = when, reason.strip()[:2000]
    change.save()
    before = incident.severity
    incident.severity = change.to_severity
    incident.severity_reason = f"{change.reason} ({change.proposed_by}; agreed by {user})"
    incident.save(update_fields=["severity", "severity_reason"])
    _record(
        incident, "incident.severity.accept", user,
        before={"severity": before},
        after={"severity": change.to_severity, "change": change.pk,
               "proposed_by": change.proposed_by.get_username(), "party": party},
        reason=change.decision_reason or change.reason,
    )  # fmt: skip
    return change


@transaction.atomic
def incident_severity_reject(
    *, incident: Incident, user: User, reason: str, now: datetime | None = None
) -> SeverityChange:
    """An approver or admin of the other party rejects, saying why; the severity stays."""
    incident = _locked(incident)
    incident_move(incident, "severity_reject", user=user)  # party, role, and a change waiting (409)
    change = _pending(incident)
    party = require_answering_party(
        incident, "severity_reject", party=change.proposed_party, user=user
    )
    text = _reason(reason, what="you reject the change")
    when = now or timezone.now()
    incident_breaches_record(incident=incident, now=when)
    change.status, change.decided_party, change.decided_by = (
        SeverityChangeStatus.REJECTED,
        party,
        user,
    )
    change.decided_at, change.decision_reason = when, text
    change.save()
    _record(
        incident, "incident.severity.reject", user,
        before={"proposed": change.to_severity, "change": change.pk},
        after={"severity": incident.severity, "party": party},
        reason=text,
    )  # fmt: skip
    return change


@transaction.atomic
def incident_acknowledge(
    *, incident: Incident, user: User, now: datetime | None = None
) -> Incident:
    """The other party acknowledges the incident: from now on it counts without question."""
    incident = _locked(incident)
    require_answering_party(incident, "acknowledge", party=incident.opened_by_party, user=user)
    when = now or timezone.now()
    incident.acknowledged_at, incident.acknowledged_by = when, user
    incident.save(update_fields=["acknowledged_at", "acknowledged_by"])
    _record(
        incident, "incident.acknowledge", user,
        before={"disputed_at": incident.disputed_at}, after={"acknowledged_at": when},
    )  # fmt: skip
    return incident


@transaction.atomic
def incident_dispute_opening(
    *, incident: Incident, user: User, reason: str, now: datetime | None = None
) -> Incident:
    """The other party disputes the incident before its response clock runs out; it then shows
    as disputed (both parties' figures) instead of counting."""
    incident = _locked(incident)
    require_answering_party(incident, "dispute_incident", party=incident.opened_by_party, user=user)
    text = _reason(reason, what="you dispute the incident")
    when = now or timezone.now()
    due = incident.response_due
    if when >= due:  # type: ignore[operator]
        raise ServiceError(
            f"The response clock ran out at {due:%Y-%m-%d %H:%M} UTC without a dispute: the "
            "incident stands."
        )
    incident.disputed_at, incident.disputed_by, incident.dispute_reason = when, user, text
    incident.save(update_fields=["disputed_at", "disputed_by", "dispute_reason"])
    _record(
        incident, "incident.dispute_opening", user,
        after={"disputed_at": when, "party": actor_party(incident, user=user)}, reason=text,
    )  # fmt: skip
    return incident
