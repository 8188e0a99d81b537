"""Reads for planned changes: only the reservation's two parties (the buyer and the awarded
provider) reach a change; anyone else gets a 404, as for an unknown id."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet
from django.http import Http404

from acceptance.models import BurnInRun, Evidence, Reservation
from acceptance.selectors.burnin import check_groups, checks_by_run, evidence_by_run, run_status
from acceptance.selectors.canary import Comparison, canary_comparisons, canary_runs
from delivery.lifecycle import change_state
from delivery.models import PlannedChange


def _changes() -> QuerySet[PlannedChange]:
    return PlannedChange.objects.select_related(
        "window", "entry__decided_by", "announced_by", "canary",
        "reservation__request__buyer", "reservation__bid__provider",
    )  # fmt: skip


def change_get(*, org_ids: Sequence[int], pk: int) -> PlannedChange:
    try:
        return (
            _changes()
            .filter(
                Q(reservation__request__buyer_id__in=org_ids)
                | Q(reservation__bid__provider_id__in=org_ids)
            )
            .get(pk=pk)
        )
    except PlannedChange.DoesNotExist:
        raise Http404("No such planned change.") from None


def change_list(*, reservation: Reservation) -> QuerySet[PlannedChange]:
    """A reservation's changes, for a caller that loaded it through its parties."""
    return _changes().filter(reservation=reservation).order_by("window__starts_at", "pk")


@dataclass
class ChangeView:
    """What the change page and the API show: the change, its canary's run and files, its
    checks grouped as burn-in's, and the checks beside the accepted burn-in's."""

    change: PlannedChange
    state: str
    run: BurnInRun
    evidence: list[Evidence]
    groups: list[Any]
    comparison: list[Comparison]
    status: dict[str, Any]

    @property
    def verdict(self) -> str:
        if not self.run.checks_current:
            return "waiting" if not self.evidence else "checking"
        return "passed" if self.run.gate_passed else "failed"


def change_view(*, change: PlannedChange) -> ChangeView:
    """One change's `change_views`."""
    return change_views(changes=[change])[change.pk]


def change_views(*, changes: Sequence[PlannedChange]) -> dict[int, ChangeView]:
    """Each change's view by its id, in a fixed number of queries however many changes: their
    canary runs, the runs' evidence, their checks, and for the comparison the reservations'
    decisions and the accepted runs' current checks."""
    if not changes:
        return {}
    runs = canary_runs(canaries=[change.canary for change in changes])
    listed = [runs[change.canary_id] for change in changes]
    evidence = evidence_by_run(runs=listed)
    checks = checks_by_run(runs=listed)
    by_reservation: dict[int, list[BurnInRun]] = {}
    for change in changes:
        by_reservation.setdefault(change.canary.reservation_id, []).append(runs[change.canary_id])
    comparisons = canary_comparisons(runs=by_reservation, checks=checks)
    views = {}
    for change in changes:
        run = runs[change.canary_id]
        views[change.pk] = ChangeView(
            change=change,
            state=change_state(change),
            run=run,
            evidence=evidence[run.pk],
            groups=check_groups(run=run, checks=checks[run.pk]),
            comparison=comparisons[run.pk],
            status=run_status(run=run, evidence=evidence[run.pk]),
        )
    return views
