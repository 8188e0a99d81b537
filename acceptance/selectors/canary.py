"""Reads for release canaries: only the reservation's two parties, the buyer and the awarded
provider, ever reach a canary's run or files; anyone else gets a 404 as for any unknown id."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from django.db.models import Q, QuerySet
from django.http import Http404

from acceptance.models import Acceptance, BurnInRun, Canary, Check, Evidence
from acceptance.selectors.burnin import checks_by_run


def _party(prefix: str, org_ids: Sequence[int]) -> Q:
    return Q(**{f"{prefix}request__buyer_id__in": org_ids}) | Q(
        **{f"{prefix}bid__provider_id__in": org_ids}
    )


def _runs() -> QuerySet[BurnInRun]:
    return BurnInRun.objects.select_related("canary__reservation__fixture_version")


def canary_run(canary: Canary) -> BurnInRun:
    return _runs().get(canary=canary)


def canary_runs(*, canaries: Sequence[Canary]) -> dict[int, BurnInRun]:
    """Each canary's run (as `canary_run` reads it) by the canary's id, in one query."""
    runs = _runs().filter(canary__in=[c.pk for c in canaries])
    return {run.canary_id: run for run in runs if run.canary_id is not None}


def canary_evidence_get(*, org_ids: Sequence[int], pk: int) -> Evidence:
    try:
        return (
            Evidence.objects.select_related("run__canary__reservation__request")
            .filter(run__canary__isnull=False)
            .filter(_party("run__canary__reservation__", org_ids))
            .get(pk=pk)
        )
    except Evidence.DoesNotExist:
        raise Http404("No such evidence.") from None


@dataclass(frozen=True)
class Comparison:
    """One check as the accepted burn-in measured it and as the canary does."""

    name: str
    before_status: str
    before: str
    after_status: str
    after: str
    expected: str


def _checked_version(run: BurnInRun | None) -> int | None:
    """The evidence version whose checks are the run's verdict; None while they are stale."""
    if run is None or not run.checks_current:
        return None
    return run.checked_version


def _current(run: BurnInRun | None, checks: Iterable[Check]) -> list[Check]:
    version = _checked_version(run)
    if version is None:
        return []
    return sorted((c for c in checks if c.version == version), key=lambda c: c.position)


def canary_comparison(*, canary: Canary, run: BurnInRun) -> list[Comparison]:
    """One canary's `canary_comparisons`."""
    return canary_comparisons(runs={canary.reservation_id: [run]})[run.pk]


def canary_comparisons(
    *, runs: Mapping[int, Sequence[BurnInRun]], checks: Mapping[int, Sequence[Check]] | None = None
) -> dict[int, list[Comparison]]:
    """Each canary run's checks beside the same checks of its reservation's accepted run
    (matched by name; a check the burn-in did not make shows "—" before), by the run's id.

    `runs`: canary runs by their reservation's id; `checks`: their check rows already read (see
    `checks_by_run`), else read here. A fixed number of queries however many runs: the
    reservations' decisions, the accepted runs' current checks, and the canaries' checks."""
    canary_runs = [run for rows in runs.values() for run in rows]
    if not canary_runs:
        return {}
    if checks is None:
        checks = checks_by_run(runs=canary_runs)
    decisions = Acceptance.objects.select_related("run").filter(reservation_id__in=list(runs))
    accepted = {d.reservation_id: d.run for d in decisions if d.is_acceptance and d.run}
    current = Q()
    for run in accepted.values():
        if (version := _checked_version(run)) is not None:
            current |= Q(run_id=run.pk, version=version)
    before: dict[int, list[Check]] = {run.pk: [] for run in accepted.values()}
    if current:
        for check in Check.objects.filter(current).order_by("position"):
            before[check.run_id].append(check)
    out = {}
    for reservation_id, rows in runs.items():
        old = accepted.get(reservation_id)
        by_name = {c.name: c for c in _current(old, before[old.pk] if old else [])}
        for run in rows:
            out[run.pk] = [
                _row(check, by_name.get(check.name)) for check in _current(run, checks[run.pk])
            ]
    return out


def _row(check: Check, old: Check | None) -> Comparison:
    return Comparison(
        name=check.name,
        before_status=old.status if old else "",
        before=old.measured if old else "",
        after_status=check.status,
        after=check.measured,
        expected=check.expected,
    )
