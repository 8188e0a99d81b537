"""Reads for reservations and burn-in runs. Tenancy: the request's buyer and the awarded
provider see a reservation; everyone else gets a 404, in pages, downloads and the API alike."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django.db.models import Count, Prefetch, Q, QuerySet
from django.http import Http404

from acceptance.models import (
    BurnInRun,
    Check,
    ChecksState,
    Evidence,
    EvidenceState,
    OverrideOutcome,
    OverrideRequest,
    Reservation,
)
from bids.choices import BidStatus
from bids.models import Bid, CapacityRequest
from engine.domain import EVIDENCE_KIND_LABELS, MONITOR_KIND_LABELS, PROBE_KIND_LABELS
from engine.evidence import burnin_report
from engine.evidence.checks.model import GROUP_BY_KIND
from orgs.models import Organization

R = TypeVar("R", Evidence, Check)

# Check groups in page order: each evidence kind under its shared label, the bisection after
# the nccl-tests runs it splits, and checks about the evidence as a whole last.
_KIND_GROUPS = {GROUP_BY_KIND[k]: label for k, label in EVIDENCE_KIND_LABELS.items()}
GROUPS = {
    **dict(list(_KIND_GROUPS.items())[:2]),
    "node-subsets": "Node subsets (bisection)",
    **dict(list(_KIND_GROUPS.items())[2:]),
    **{GROUP_BY_KIND[k]: label for k, label in MONITOR_KIND_LABELS.items()},
    **{GROUP_BY_KIND[k]: label for k, label in PROBE_KIND_LABELS.items()},
    "runtime": "Runtime versions per node",
    "evidence": "Other evidence",
}
STATUS_ORDER = ("fail", "missing", "inconclusive", "warn", "pass")


def _party(prefix: str, org_ids: Iterable[int]) -> Q:
    ids = list(org_ids)
    return Q(**{f"{prefix}request__buyer_id__in": ids}) | Q(
        **{f"{prefix}bid__provider_id__in": ids}
    )


def reservation_get(*, org_ids: Iterable[int], pk: int) -> Reservation:
    try:
        return (
            Reservation.objects.select_related(
                "request__buyer",
                "bid__provider",
                "bid_revision",
                "fixture_version",
                "awarded_by",
                "decision__by",
                "decision__run",
                "decision__override__requested_by",
                "baseline__run",
            )
            .filter(_party("", org_ids))
            .get(pk=pk)
        )
    except Reservation.DoesNotExist:
        raise Http404 from None


def reservation_list(*, org_ids: Iterable[int]) -> QuerySet[Reservation]:
    """Reservations where the organisation is the buyer or the awarded provider."""
    ids = list(org_ids)
    return (
        Reservation.objects.filter(Q(request__buyer_id__in=ids) | Q(bid__provider_id__in=ids))
        .select_related(
            "bid__provider",
            "bid_revision",
            "fixture_version",
            "decision__by",
            "decision__override__requested_by",
        )
        .prefetch_related(
            Prefetch("runs", queryset=BurnInRun.objects.order_by("created_at")),
            Prefetch(
                "override_requests",
                queryset=OverrideRequest.objects.filter(
                    outcome=OverrideOutcome.PENDING
                ).select_related("requested_by", "decided_by"),
                to_attr="pending_overrides",
            ),
        )
        .order_by("-awarded_at")
    )


def run_get(*, org_ids: Iterable[int], pk: int) -> BurnInRun:
    try:
        return (
            BurnInRun.objects.select_related(
                "reservation__request__buyer",
                "reservation__bid__provider",
                "reservation__fixture_version",
                "reservation__decision__by",
                "reservation__decision__override__requested_by",
                "created_by",
            )
            .filter(_party("reservation__", org_ids))
            .get(pk=pk)
        )
    except BurnInRun.DoesNotExist:
        raise Http404 from None


def evidence_get(*, org_ids: Iterable[int], pk: int) -> Evidence:
    try:
        return (
            Evidence.objects.select_related("run__reservation__request", "run__reservation__bid")
            .filter(_party("run__reservation__", org_ids))
            .get(pk=pk)
        )
    except Evidence.DoesNotExist:
        raise Http404 from None


def is_buyer_of(reservation: Reservation, org: Organization | None) -> bool:
    return org is not None and reservation.request.buyer_id == org.pk


def reservations_for_request(
    *, capacity_request: CapacityRequest, org: Organization | None
) -> list[Reservation]:
    """The request's reservations `org` may see: every one to the buyer, a provider only its
    own (a split award's other lots and providers stay out of its sight)."""
    if org is None:
        return []
    return list(
        Reservation.objects.filter(request=capacity_request)
        .filter(_party("", [org.pk]))
        .select_related("bid__provider", "bid_revision", "decision", "lot")
        .order_by("lot__number", "bid__provider__name", "pk")
    )


def awardable_bids(*, capacity_request: CapacityRequest) -> QuerySet[Bid]:
    if capacity_request.bids_hidden_from_buyer:
        return Bid.objects.none()
    bids = capacity_request.bids.filter(status=BidStatus.SUBMITTED).exclude(
        latest_revision_number=0
    )
    if capacity_request.in_final_round:
        bids = bids.filter(shortlisted=True)  # the final round's offers are the ones to award
    return bids.select_related("provider").order_by("provider__name")


def run_list(*, reservation: Reservation) -> QuerySet[BurnInRun]:
    return (
        reservation.runs.select_related("created_by")
        .annotate(
            file_count=Count(
                "evidence", filter=Q(evidence__withdrawn_at__isnull=True), distinct=True
            )
        )
        .order_by("created_at", "pk")
    )


def _evidence_read(evidence: QuerySet[Evidence]) -> QuerySet[Evidence]:
    return evidence.select_related("uploaded_by", "withdrawn_by").order_by("uploaded_at", "pk")


def evidence_list(*, run: BurnInRun) -> QuerySet[Evidence]:
    return _evidence_read(run.evidence.all())


def evidence_by_run(*, runs: Sequence[BurnInRun]) -> dict[int, list[Evidence]]:
    """Each run's `evidence_list`, read for all the runs in one query."""
    return _by_run(runs, lambda ids: _evidence_read(Evidence.objects.filter(run__in=ids)))


def _by_run(
    runs: Sequence[BurnInRun], read: Callable[[list[int]], Iterable[R]]
) -> dict[int, list[R]]:
    """The rows `read` returns for the runs' ids, by run, each holding its run (no query more)."""
    by_pk = {run.pk: run for run in runs}
    rows: dict[int, list[R]] = {pk: [] for pk in by_pk}
    for row in read(list(by_pk)):
        row.run = by_pk[row.run_id]
        rows[row.run_id].append(row)
    return rows


@dataclass
class CheckGroup:
    key: str
    title: str
    checks: list[Check] = field(default_factory=list)

    @property
    def worst(self) -> str:
        statuses = {c.status for c in self.checks}
        return next((s for s in STATUS_ORDER if s in statuses), "pass")

    @property
    def counts(self) -> list[tuple[str, int]]:
        counted: dict[str, int] = {}
        for c in self.checks:
            counted[c.status] = counted.get(c.status, 0) + 1
        return [(s, counted[s]) for s in STATUS_ORDER if s in counted]


def _checks_read(checks: QuerySet[Check]) -> QuerySet[Check]:
    return checks.select_related("evidence").order_by("position")


def checks_by_run(*, runs: Sequence[BurnInRun]) -> dict[int, list[Check]]:
    """Each run's check rows as `check_groups` reads them, for all the runs in one query."""
    return _by_run(runs, lambda ids: _checks_read(Check.objects.filter(run__in=ids)))


def check_groups(*, run: BurnInRun, checks: Iterable[Check] | None = None) -> list[CheckGroup]:
    """The run's checks by group, in page order; `checks`: the run's rows already read (see
    `checks_by_run`)."""
    groups: dict[str, CheckGroup] = {}
    for check in checks if checks is not None else _checks_read(run.checks.all()):
        group = groups.get(check.group)
        if group is None:
            group = groups[check.group] = CheckGroup(
                check.group, GROUPS.get(check.group, check.group)
            )
        group.checks.append(check)
    order = list(GROUPS)
    return sorted(
        groups.values(), key=lambda g: order.index(g.key) if g.key in order else len(order)
    )


def chart_files(*, run: BurnInRun) -> list[dict[str, Any]]:
    return [
        {
            "id": e.pk,
            "name": e.original_name,
            "sha256": e.sha256,
            "node": e.node,
            "kind": e.kind,
            "parsed": e.parsed,
        }
        for e in run.evidence.filter(
            withdrawn_at__isnull=True, state=EvidenceState.PARSED
        ).order_by("pk")
    ]


def run_charts(*, run: BurnInRun) -> dict[str, Any]:
    return burnin_report.charts(chart_files(run=run), run.burnin_reservation.fixture_version.spec)


def run_status(*, run: BurnInRun, evidence: Iterable[Evidence] | None = None) -> dict[str, Any]:
    """The small JSON the run page polls while anything is queued, parsing or being checked."""
    rows = list(evidence if evidence is not None else evidence_list(run=run))
    busy = any(e.in_progress for e in rows if e.withdrawn_at is None)
    checking = not run.checks_current and run.checks_state in (
        ChecksState.RUNNING,
        ChecksState.WAITING,
    )
    return {
        "run": run.pk,
        "evidence_version": run.evidence_version,
        "checked_version": run.checked_version,
        "checks_state": run.checks_state,
        "checks_current": run.checks_current,
        "checks_error": run.checks_error,
        "gate": {"passed": run.gate_passed, "summary": run.gate_summary}
        if run.checks_current
        else None,
        "busy": busy or (checking and any(e.withdrawn_at is None for e in rows)),
        "evidence": [
            {
                "id": e.pk,
                "name": e.original_name,
                "node": e.node_label,
                "kind": e.kind,
                "state": e.state,
                "state_label": e.get_state_display(),
                "error": e.error,
                "error_line": e.error_line,
                "withdrawn": e.withdrawn_at is not None,
            }
            for e in rows
        ],
    }
