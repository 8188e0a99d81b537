"""The notices a reservation sends: a burn-in verdict to the buyer (the moment the buyer can
decide), and the decision to the awarded provider. Nobody else is a party to a reservation.
A pilot's notices go to its two parties alike: the buyer and the invited provider."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.urls import reverse

from acceptance.models import (
    Acceptance,
    BurnInRun,
    DecisionKind,
    OverrideRequest,
    Pilot,
    Reservation,
)
from notices.choices import Event
from notices.models import Notice
from notices.services import notify, notify_members
from orgs.choices import MemberRole
from orgs.models import Membership


def acceptance_requested_notify(*, run: BurnInRun) -> list[Notice]:
    """A run's checks reached a verdict on a pending reservation: the buyer may decide now.

    Not while required evidence is still missing: files arrive one by one, and a run checked
    half-uploaded is not ready for a decision. Then once per run and outcome: the buyer hears
    of a pass once and of a failure once, however often the run is re-checked."""
    reservation: Reservation = run.burnin_reservation
    if not reservation.is_pending or run.gate_passed is None:
        return []
    if not run.gate_passed and run.checks.filter(mandatory=True, status="missing").exists():
        return []
    request = reservation.request
    provider = reservation.bid.provider.name
    if run.gate_passed:
        subject = f"{run.label} passed the gate: accept or reject “{request.title}”"
        verdict = "passed every blocking check"
    else:
        subject = f"{run.label} failed the gate on “{request.title}”"
        verdict = f"failed the gate ({run.gate_summary})" if run.gate_summary else "failed the gate"
    return notify_members(
        event=Event.ACCEPTANCE_REQUESTED,
        organization=request.buyer,
        subject=subject,
        body=(
            f"{provider}'s burn-in run “{run.label}” for “{request.title}” {verdict}. "
            "The reservation waits for your decision: accept it (its clock starts) or reject it."
        ),
        path=reverse("burnin:run-detail", args=[run.pk]),
        key=f"acceptance-request:{run.pk}:{'pass' if run.gate_passed else 'fail'}",
    )


def acceptance_decided_notify(*, decision: Acceptance) -> list[Notice]:
    reservation = decision.reservation
    request = reservation.request
    outcome = {
        DecisionKind.ACCEPTED: "accepted",
        DecisionKind.OVERRIDE: "accepted over a failing gate",
        DecisionKind.REJECTED: "rejected",
    }.get(DecisionKind(decision.kind), str(decision.kind))
    reason = f" Reason: {decision.reason}" if decision.reason else ""
    return notify_members(
        event=Event.ACCEPTANCE_DECIDED,
        organization=reservation.bid.provider,
        subject=f"{request.buyer.name} {outcome} the reservation for “{request.title}”",
        body=f"{request.buyer.name} {outcome} the reservation for “{request.title}”.{reason}",
        path=reverse("burnin:reservation-detail", args=[reservation.pk]),
        key=f"acceptance-decision:{decision.pk}",
    )


def _approvers(override: OverrideRequest) -> list[User]:
    """Who may approve: the buyer's approvers and admins, never the person who asked."""
    buyer = override.reservation.request.buyer
    return [
        m.user
        for m in Membership.objects.filter(
            organization=buyer, role__in=[MemberRole.APPROVER, MemberRole.ADMIN]
        ).select_related("user")
        if m.user_id != override.requested_by_id
    ]


def override_requested_notify(*, override: OverrideRequest) -> list[Notice]:
    reservation = override.reservation
    request = reservation.request
    asker = override.requested_by
    who = (asker.get_full_name() or asker.get_username()) if asker else "A colleague"
    waived = len(override.waived_codes)
    return notify(
        event=Event.OVERRIDE_APPROVAL,
        users=_approvers(override),
        organization=request.buyer,
        subject=f"Approve or decline: accept “{request.title}” over a failing gate",
        body=(
            f"{who} asks to accept the reservation for “{request.title}” although run "
            f"“{override.run.label}” fails its gate, waiving {waived} blocking "
            f"check{'s' if waived != 1 else ''}. Reason given: {override.reason} "
            "A second person must approve before the reservation is accepted."
        ),
        path=reverse("burnin:reservation-detail", args=[reservation.pk]),
        key=f"override-request:{override.pk}",
    )


def override_declined_notify(*, override: OverrideRequest) -> list[Notice]:
    request = override.reservation.request
    by = override.decided_by
    who = (by.get_full_name() or by.get_username()) if by else "The approver"
    return notify(
        event=Event.OVERRIDE_APPROVAL,
        users=[override.requested_by] if override.requested_by else [],
        organization=request.buyer,
        subject=f"Override declined on “{request.title}”",
        body=(
            f"{who} declined to accept “{request.title}” over the failing gate of run "
            f"“{override.run.label}”. Reason: {override.decline_reason} The reservation is "
            "still pending."
        ),
        path=reverse("burnin:reservation-detail", args=[override.reservation_id]),
        key=f"override-decline:{override.pk}",
    )


def pilot_invited_notify(*, pilot: Pilot) -> list[Notice]:
    """The invited provider alone hears of its pilot; a rival hears nothing of it."""
    request = pilot.bid.request
    return notify_members(
        event=Event.PILOT_INVITED,
        organization=pilot.bid.provider,
        subject=f"{request.buyer.name} invites your bid on “{request.title}” to a pilot",
        body=(
            f"{request.buyer.name} invites your shortlisted bid on “{request.title}” to a pilot "
            f"from {pilot.starts_on:%-d %b %Y} to {pilot.ends_on:%-d %b %Y}: run the fixture, "
            "nvidia-smi topo -m, nvbandwidth, ib_write_bw and ib_write_lat, and the buyer's "
            "application run, and upload their output. The figures they verify are shown to the "
            "buyer beside your bid's claims."
        ),
        path=reverse("pilots:detail", args=[pilot.pk]),
        key=f"pilot-invited:{pilot.pk}",
    )


def pilot_checked_notify(*, pilot: Pilot, run: BurnInRun) -> list[Notice]:
    """Both parties to the pilot hear that its evidence was checked, once per version."""
    request = pilot.bid.request
    figures = len(pilot.figures)
    body = (
        f"The pilot evidence of {pilot.bid.provider.name} on “{request.title}” was checked: "
        f"{figures} verified figure{'s' if figures != 1 else ''}; {run.gate_summary or 'no gate'}."
    )
    notices: list[Notice] = []
    for organization in (request.buyer, pilot.bid.provider):
        notices += notify_members(
            event=Event.PILOT_CHECKED,
            organization=organization,
            subject=f"Pilot evidence checked on “{request.title}”",
            body=body,
            path=reverse("pilots:detail", args=[pilot.pk]),
            key=f"pilot-checked:{pilot.pk}:{run.checked_version}",
        )
    return notices
