"""An incident's clocks and standing: the agreed terms, breaches as recorded, severity changes
and their history, acknowledgement."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from acceptance.models import Reservation
from acceptance.selectors.lot_parts import own_terms, reservation_acknowledgement
from contracts.defaults import STANDARD
from contracts.models import HandoffTerms, HandoffTermsRevision
from engine import failures
from engine.formatting import countdown
from incidents.models import (
    ClockBreach,
    Incident,
    SeverityChange,
    SeverityChangeStatus,
)


def terms_for(
    reservation: Reservation,
) -> tuple[HandoffTermsRevision | None, dict[str, Any], str]:
    """The terms an incident runs on: the revision the provider acknowledged for the awarded
    bid (of its lot, where the lot has its own terms), else the lot's or the request's latest
    revision, else its current terms, else the standard."""
    ack = reservation_acknowledgement(reservation=reservation)
    if ack is not None and ack.terms_revision is not None:
        rev = ack.terms_revision
        return rev, dict(rev.snapshot), f"terms revision {rev.number} (acknowledged by provider)"
    if reservation.lot is not None and (own := own_terms(reservation.lot)) is not None:
        latest = own.revisions.order_by("-number").first()
        if latest is not None:
            return latest, dict(latest.snapshot), f"lot terms revision {latest.number}"
    terms = HandoffTerms.objects.filter(request_id=reservation.request_id).first()
    if terms is not None:
        latest = terms.revisions.order_by("-number").first()
        if latest is not None:
            return (
                latest,
                dict(latest.snapshot),
                f"terms revision {latest.number} (request's latest)",
            )
        return None, terms.snapshot(), f"current terms v{terms.version} (no revision yet)"
    return None, dict(STANDARD), "standard terms (the request has none)"


def live_breaches(incident: Incident, *, now: datetime) -> list[dict[str, Any]]:
    """The clocks of the severity in force that have run out at `now` (response, restore), with
    their deadlines; reads only the incident's own columns."""
    due = failures.incident_clocks(
        severity=incident.severity, detected_at=incident.opened_at, clocks=incident.clocks
    )
    status = failures.clock_status(
        due, now=now, responded_at=incident.responded_at, restored_at=incident.restored_at
    )
    out = []
    for clock, breached, when, key in (
        ("response", status.response_breached, due.response_due, "response_minutes"),
        ("restore", status.restore_breached, due.restore_due, "restore_minutes"),
    ):
        if breached:
            out.append({"clock": clock, "severity": incident.severity, "due_at": when,
                        "minutes": incident.minutes(key)})  # fmt: skip
    return out


def clock_breaches(
    incident: Incident, *, now: datetime, recorded: Iterable[ClockBreach] | None = None
) -> int:
    """How many of the incident's clocks are breached: every recorded breach (a fact: a later
    severity change or edit never takes it away), plus a clock of the severity in force that
    has run out since the last sweep. A clock counts once. `recorded` lets a list of incidents
    pass its prefetched rows; without it the rows are read."""
    if recorded is not None:
        rows = list(recorded)
    else:
        rows = list(incident.breaches.all()) if incident.pk is not None else []
    kinds = {b.clock for b in rows}
    kinds.update(b["clock"] for b in live_breaches(incident, now=now))
    return len(kinds)


def breaches_list(*, incident: Incident) -> list[ClockBreach]:
    return list(ClockBreach.objects.filter(incident=incident).order_by("due_at", "pk"))


def severity_changes(*, incident: Incident) -> list[SeverityChange]:
    return list(
        SeverityChange.objects.filter(incident=incident)
        .select_related("proposed_by", "decided_by")
        .order_by("proposed_at", "pk")
    )


def pending_severity_change(*, incident: Incident) -> SeverityChange | None:
    return next(
        (
            c
            for c in severity_changes(incident=incident)
            if c.status == SeverityChangeStatus.PENDING
        ),
        None,
    )


def _utc_at(value: datetime) -> str:
    return f"{value.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def _who(user: Any) -> str:
    return user.get_username() if user is not None else "a former member"


def opened_severity(incident: Incident, changes: list[SeverityChange] | None = None) -> str:
    """The severity the incident was opened as: the first accepted change's starting point,
    else the severity it has now."""
    rows = changes if changes is not None else severity_changes(incident=incident)
    accepted = [c for c in rows if c.status == SeverityChangeStatus.ACCEPTED]
    return accepted[0].from_severity if accepted else incident.severity


def severity_history(
    incident: Incident, changes: list[SeverityChange] | None = None
) -> list[dict[str, Any]]:
    """The severity's story as it happened, one line per step: "opened as S1 by alice at …",
    "then changed to S3 by nora on bob's agreement at …", proposals rejected or waiting."""
    rows = changes if changes is not None else severity_changes(incident=incident)
    lines = [{
        "at": incident.opened_at, "kind": "opened",
        "text": f"opened as {opened_severity(incident, rows)} by {_who(incident.opened_by)} at "
                f"{_utc_at(incident.opened_at)}",
    }]  # fmt: skip
    for c in rows:
        if c.status == SeverityChangeStatus.ACCEPTED and c.decided_at is not None:
            text = (
                f"then changed to {c.to_severity} by {_who(c.proposed_by)} on "
                f"{_who(c.decided_by)}'s agreement at {_utc_at(c.decided_at)} ({c.reason})"
            )
            lines.append({"at": c.decided_at, "kind": "accepted", "text": text})
        elif c.status == SeverityChangeStatus.REJECTED and c.decided_at is not None:
            text = (
                f"{c.to_severity} proposed by {_who(c.proposed_by)} at "
                f"{_utc_at(c.proposed_at)} ({c.reason}); rejected by {_who(c.decided_by)} at "
                f"{_utc_at(c.decided_at)}: {c.decision_reason}"
            )
            lines.append({"at": c.decided_at, "kind": "rejected", "text": text})
        else:
            text = (
                f"{c.to_severity} proposed by {_who(c.proposed_by)} (the {c.proposed_party}) at "
                f"{_utc_at(c.proposed_at)} ({c.reason}); awaiting the {c.other_party}, the "
                f"{c.from_severity} clocks run meanwhile"
            )
            lines.append({"at": c.proposed_at, "kind": "pending", "text": text})
    return lines


def incident_standing(incident: Incident, *, now: datetime) -> str:
    """Whether one party's incident is a fact both parties stand by: "acknowledged" (by the
    other party), "disputed", "unanswered" (the response clock ran out without a dispute: it
    stands), or "awaiting" (not yet). Incidents opened before parties were recorded stand."""
    if not incident.opened_by_party or incident.acknowledged_at is not None:
        return "acknowledged"
    if incident.disputed_at is not None:
        return "disputed"
    if now >= incident.response_due:  # type: ignore[operator]
        return "unanswered"
    return "awaiting"


def counts(standing: str) -> bool:
    """Whether an incident of this standing moves availability and credits."""
    return standing in ("acknowledged", "unanswered")


def clock_rows(incident: Incident, *, now: datetime) -> list[dict[str, Any]]:
    due = failures.incident_clocks(
        severity=incident.severity, detected_at=incident.opened_at, clocks=incident.clocks
    )
    status = failures.clock_status(
        due, now=now, responded_at=incident.responded_at, restored_at=incident.restored_at
    )
    return [
        {
            "key": "response",
            "what": "responded",
            "label": "First response",
            "done_label": "Responded at",
            "minutes": incident.minutes("response_minutes"),
            "due": due.response_due,
            "left": status.response_left,
            "left_text": countdown(status.response_left.total_seconds()),
            "breached": status.response_breached,
            "done_at": incident.responded_at,
            "done_by": incident.responded_by,
        },
        {
            "key": "restore",
            "what": "restored",
            "label": "Restore",
            "done_label": "Restored at",
            "minutes": incident.minutes("restore_minutes"),
            "due": due.restore_due,
            "left": status.restore_left,
            "left_text": countdown(status.restore_left.total_seconds()),
            "breached": status.restore_breached,
            "done_at": incident.restored_at,
            "done_by": incident.restored_by,
        },
    ]
