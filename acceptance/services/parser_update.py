"""After a deploy that changes the parsers (`restore.FORMAT`): re-check every open burn-in run
holding a file read under older parsers, so its checks say what today's parsers read, instead of
waiting for someone's next upload or re-check.

Only open runs: a reservation still pending, a pilot whose request is undecided, a canary
before its change window. A decided run keeps the checks its decision was taken on.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from acceptance.models import BurnInRun, Evidence, EvidenceState, ReservationStatus
from acceptance.pilot_lifecycle import DECIDED
from acceptance.services.burnin import run_recheck_for_parsers
from engine.evidence.parsers.restore import FORMAT


@dataclass(frozen=True)
class StaleRuns:
    open: list[BurnInRun]  # re-checked (with dry_run: to be re-checked)
    decided: int  # runs with such files whose checks stay as they were decided


def _stale() -> QuerySet[BurnInRun]:
    older = Evidence.objects.filter(
        run=OuterRef("pk"),
        withdrawn_at__isnull=True,
        state__in=(EvidenceState.PARSED, EvidenceState.UNREADABLE),
    ).exclude(parsed_format=FORMAT)
    return BurnInRun.objects.filter(Exists(older))


def _open() -> Q:
    return (
        Q(reservation__status=ReservationStatus.PENDING)
        | (Q(pilot__isnull=False) & ~Q(pilot__bid__request__status__in=DECIDED))
        | Q(canary__closes_at__gt=timezone.now())
    )


def runs_recheck_stale(*, dry_run: bool = False) -> StaleRuns:
    """Queue a re-check of each open run holding a file read under older parsers; safe to run
    again (a re-checked file is stored under today's format, and a run whose re-check is queued
    and not started is not queued twice)."""
    stale = _stale()
    runs = list(
        stale.filter(_open()).select_related("reservation", "pilot", "canary").order_by("pk")
    )
    decided = stale.exclude(pk__in=[run.pk for run in runs]).count()
    if not dry_run:
        for run in runs:
            run_recheck_for_parsers(run=run)
    return StaleRuns(open=runs, decided=decided)
