"""Reads for release canaries: only the reservation's two parties, the buyer and the awarded
provider, ever reach a canary's run or files; anyone else gets a 404 as for any unknown id."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db.models import Q
from django.http import Http404

from acceptance.models import BurnInRun, Canary, Check, Evidence


def _party(prefix: str, org_ids: Sequence[int]) -> Q:
    return Q(**{f"{prefix}request__buyer_id__in": org_ids}) | Q(
        **{f"{prefix}bid__provider_id__in": org_ids}
    )


def canary_run(canary: Canary) -> BurnInRun:
    return BurnInRun.objects.select_related("canary__reservation__fixture_version").get(
        canary=canary
    )


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


def _current(run: BurnInRun | None) -> list[Check]:
    if run is None or not run.checks_current or run.checked_version is None:
        return []
    return list(run.checks.filter(version=run.checked_version).order_by("position"))


def canary_comparison(*, canary: Canary, run: BurnInRun) -> list[Comparison]:
    """The canary's checks beside the same checks of the reservation's accepted run (matched by
    name; a check the burn-in did not make shows "—" before)."""
    decision = getattr(canary.reservation, "decision", None)
    accepted = decision.run if decision is not None and decision.is_acceptance else None
    before = {c.name: c for c in _current(accepted)}
    rows = []
    for check in _current(run):
        old = before.get(check.name)
        rows.append(
            Comparison(
                name=check.name,
                before_status=old.status if old else "",
                before=old.measured if old else "",
                after_status=check.status,
                after=check.measured,
                expected=check.expected,
            )
        )
    return rows
