"""Planned releases on the change log: a provider's driver, firmware or image change on a
reservation (outside any incident) is an entry of the same change log incidents keep, with the
same two-party story: the provider proposes, the buyer approves or declines, and the change is
recorded as applied when its window opens. The caller (delivery's planned changes) owns the
rules and the audit entries; these writes keep the entry's fields in step."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User

from acceptance.models import Reservation
from incidents.models import ChangeKind, ChangeLogEntry, ChangeStatus


def release_propose(
    *, reservation: Reservation, user: User, what: str, now: datetime
) -> ChangeLogEntry:
    """The provider's announcement, as a proposed release on the reservation's change log."""
    return ChangeLogEntry.objects.create(
        reservation=reservation,
        kind=ChangeKind.RELEASE,
        what=what,
        proposed_party="provider",
        proposed_by=user,
        proposed_at=now,
    )


def release_decide(
    *, entry: ChangeLogEntry, user: User, approve: bool, note: str, now: datetime
) -> ChangeLogEntry:
    """The buyer's answer: approved, or declined with its objection (a later objection replaces
    an approval; the audit trail keeps both)."""
    entry.status = ChangeStatus.APPROVED if approve else ChangeStatus.DECLINED
    entry.decided_party, entry.decided_by, entry.decided_at = "buyer", user, now
    entry.decision_note = note
    entry.save(update_fields=["status", "decided_party", "decided_by", "decided_at",
                              "decision_note"])  # fmt: skip
    return entry


def release_roll_out(*, entry: ChangeLogEntry, at: datetime, checks: str) -> ChangeLogEntry:
    """The window opened and the change went out: approved entries become applied; a declined
    or unanswered one keeps its status (the record says it rolled out regardless)."""
    if entry.status == ChangeStatus.APPROVED:
        entry.status = ChangeStatus.APPLIED
    entry.applied_at = at
    entry.checks_rerun = checks
    entry.save(update_fields=["status", "applied_at", "checks_rerun"])
    return entry
