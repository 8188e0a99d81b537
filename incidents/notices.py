"""The notices an incident sends, to both parties' members (the buyer and the awarded
provider, nobody else): opened, a clock at 75 % of its target, a clock breached, closed.

The clock notices come from a sweep (`clocks_sweep`, run by Celery beat and by
`manage.py send_due_notices`); each is sent once per incident, clock and threshold, whatever
the severity does later."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.urls import reverse
from django.utils import timezone

from incidents.models import Incident, RepairEstimate
from notices.choices import Event
from notices.models import Notice
from notices.services import notify_members

WARNING_SHARE = 0.75
# The clocks the sweep watches: (key, the mark that stops it, its target in the frozen clocks,
# its name in a notice).
CLOCKS = (
    ("response", "responded_at", "response_minutes", "first-response"),
    ("restore", "restored_at", "restore_minutes", "restore"),
)


def _both(incident: Incident, *, event: Event, subject: str, body: str, key: str) -> list[Notice]:
    reservation = incident.reservation
    path = reverse("incidents:incident-detail", args=[incident.pk])
    sent: list[Notice] = []
    for org in (reservation.request.buyer, reservation.bid.provider):
        sent += notify_members(
            event=event, organization=org, subject=subject, body=body, path=path, key=key
        )
    return sent


def _title(incident: Incident) -> str:
    return (
        f"Incident #{incident.pk} ({incident.severity}) on “{incident.reservation.request.title}”"
    )


def _due(value: datetime) -> str:
    return f"{timezone.localtime(value):%-d %b %Y at %H:%M %Z}"


def _deadline(incident: Incident, minutes_key: str) -> datetime:
    return incident.opened_at + timedelta(minutes=incident.minutes(minutes_key))


def incident_opened_notify(*, incident: Incident) -> list[Notice]:
    summary = f" {incident.summary}" if incident.summary else ""
    return _both(
        incident,
        event=Event.INCIDENT_OPENED,
        subject=f"{_title(incident)} opened",
        body=(
            f"{_title(incident)} was opened.{summary}\n"
            f"First response due {_due(_deadline(incident, 'response_minutes'))}; "
            f"restore due {_due(_deadline(incident, 'restore_minutes'))}."
        ),
        key=f"incident-opened:{incident.pk}",
    )


def incident_closed_notify(*, incident: Incident) -> list[Notice]:
    closer = incident.closed_by.get_username() if incident.closed_by else "the system"
    return _both(
        incident,
        event=Event.INCIDENT_CLOSED,
        subject=f"{_title(incident)} closed",
        body=f"{_title(incident)} was closed by {closer}: every recovery check passed.",
        key=f"incident-closed:{incident.pk}",
    )


def repair_estimate_notify(*, estimate: RepairEstimate) -> list[Notice]:
    """The buyer hears of each estimate revision (the provider posted it)."""
    incident = estimate.incident
    buyer = incident.reservation.request.buyer
    parts = ", ".join(estimate.parts) if estimate.parts else "no parts named"
    revised = "revised" if estimate.revision > 1 else "posted"
    return notify_members(
        event=Event.REPAIR_ESTIMATE,
        organization=buyer,
        subject=f"{_title(incident)}: repair estimate {revised} (r{estimate.revision})",
        body=(
            f"The provider {revised} its repair estimate for {_title(incident)}: cause "
            f"{estimate.get_cause_class_display()}; parts: {parts}; ETA {_due(estimate.eta)} "
            f"(confidence {estimate.confidence})."
        ),
        path=reverse("incidents:incident-detail", args=[incident.pk]),
        key=f"incident-estimate:{incident.pk}:{estimate.revision}",
    )


def clock_notify(*, incident: Incident, now: datetime) -> list[Notice]:
    """The threshold notices now due on one incident's running clocks. A clock found already
    breached sends the breach only: its 75 % notice would arrive late and say less."""
    sent: list[Notice] = []
    for key, stop_field, minutes_key, name in CLOCKS:
        minutes = incident.minutes(minutes_key)
        if not minutes or getattr(incident, stop_field) is not None:
            continue
        target = timedelta(minutes=minutes)
        due = _deadline(incident, minutes_key)
        elapsed = now - incident.opened_at
        if now > due:
            sent += _both(
                incident,
                event=Event.CLOCK_BREACHED,
                subject=f"{_title(incident)}: the {name} clock is breached",
                body=(
                    f"The {name} clock of {_title(incident)} ran out at {_due(due)} "
                    f"({minutes} minutes after opening) with nothing recorded."
                ),
                key=f"incident-clock:{incident.pk}:{key}:breach",
            )
        elif elapsed >= target * WARNING_SHARE:
            sent += _both(
                incident,
                event=Event.CLOCK_WARNING,
                subject=f"{_title(incident)}: 75 % of the {name} clock used",
                body=(
                    f"75 % of the {name} clock of {_title(incident)} has run "
                    f"({minutes} minutes in all). It is due {_due(due)}."
                ),
                key=f"incident-clock:{incident.pk}:{key}:75",
            )
    return sent


def clocks_sweep(*, now: datetime | None = None) -> int:
    """Every open incident's due clock notices; returns how many were written (0 when run
    again with nothing new due)."""
    now = now or timezone.now()
    incidents = Incident.objects.filter(closed_at__isnull=True).select_related(
        "reservation__request__buyer", "reservation__bid__provider"
    )
    return sum(len(clock_notify(incident=i, now=now)) for i in incidents)
