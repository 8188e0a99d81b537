"""Reconciling a stored file with its confirmed mapping: every line checked, the differences,
totals and warnings stored, the SLA credits of the months it covers taken off. Safe to run
twice; always ends, done or failed with a reason and Retry."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from acceptance.models import Reservation
from billing import bills, selectors
from billing.models import (
    UsageDifference,
    UsageState,
    UsageUpload,
)
from billing.services.common import LOST_WORKER, MAX_LISTED, _fail
from billing.services.inspection import _inspect
from delivery.selectors import delivery_for
from engine.billing import (
    Contract,
    Result,
    UsageError,
    UsageLine,
    dollars,
    gpu_hours,
    reconcile,
)
from engine.billing.lines import GPU, to_micro
from engine.formatting import rounded


def credits_for_period(
    reservation: Reservation, first: int | None, last: int | None
) -> tuple[Decimal, list[str]]:
    """The SLA credits of the months a bill's lines cover, and those months ("2027-01")."""
    if first is None or last is None:
        return Decimal(0), []
    report = delivery_for(reservation=reservation).report
    if report is None:
        return Decimal(0), []
    lo, hi = datetime.fromtimestamp(first, UTC), datetime.fromtimestamp(last, UTC)
    months = [m for m in report.months if m.start < hi and m.end > lo]
    return sum((m.credit.value or Decimal(0) for m in months), Decimal(0)), [
        m.label for m in months
    ]


def usage_reconcile(*, upload_id: int) -> UsageUpload:
    """Read the stored file with its mapping and check every line. Safe to run twice: the
    previous outcome is replaced as a whole. The SLA credits due are those of the months the
    bill's GPU lines cover (the delivery report's figures)."""
    with transaction.atomic():
        row = UsageUpload.objects.select_for_update().get(pk=upload_id)
        if row.state in (UsageState.MAPPING, UsageState.DONE):
            return row  # waiting for a mapping, or a re-delivered message of a finished run
        if row.state == UsageState.RUNNING:
            # Re-delivered after its worker died mid-run: fail it rather than loop on a file
            # that may be what killed the worker.
            row.state, row.error = UsageState.ERROR, LOST_WORKER
            row.save(update_fields=["state", "error"])
            return row
        row.state, row.started_at, row.attempts = (
            UsageState.RUNNING,
            timezone.now(),
            F("attempts") + 1,
        )
        row.save(update_fields=["state", "started_at", "attempts"])
    row = UsageUpload.objects.select_related(
        "reservation__request", "reservation__bid", "reservation__bid_revision"
    ).get(pk=upload_id)
    other: dict[str, int] = {}
    warnings: list[dict[str, Any]] = []
    try:
        contract = selectors.contract_for(reservation=row.reservation)
        if bills.is_bill(row.mapping):
            result, other, warnings = _reconcile_bill(row, contract)
        else:
            lines = bills.usage_lines(
                row.read_bytes(),
                name=row.original_name,
                mapping=row.mapping,
                nodes=[],
                node_gpus=None,
            )
            result = reconcile(lines, contract, max_listed=MAX_LISTED)
    except UsageError as exc:
        with transaction.atomic():
            row.differences.all().delete()
            row.warnings = []
            row.save(update_fields=["warnings", "inspection", "inspected_at", "headers"])
            _fail(row, exc)
        return row
    credits, months = credits_for_period(row.reservation, result.first_start, result.last_end)
    result.credits = max(to_micro(str(credits)), 0)
    with transaction.atomic():
        row.differences.all().delete()
        UsageDifference.objects.bulk_create(
            (
                UsageDifference(
                    upload=row,
                    line=d.line,
                    rule=d.rule,
                    message=d.message,
                    billed_usd=dollars(d.billed),
                    allowed_usd=dollars(d.allowed),
                )
                for d in result.differences
            ),
            batch_size=2000,
        )
        row.lines, row.by_rule, row.listed_all = result.lines, result.by_rule, result.listed_all
        row.credits_usd = dollars(result.credits)
        row.totals = {
            "billed": str(dollars(result.billed_total)),
            "allowed": str(dollars(result.allowed_total)),
            "credits": str(dollars(result.credits)),
            "credit_months": months,
            # Credits beyond what the bill allows leave nothing to pay, not a negative amount.
            "net": str(max(dollars(result.net), Decimal(0))),
            "over": str(dollars(result.billed_total - result.allowed_total)),
            "gpu_hours": f"{rounded(gpu_hours(result.gpu_hours)):f}",
            "billed_by_type": {k: str(dollars(v)) for k, v in result.billed.items()},
            "allowed_by_type": {k: str(dollars(v)) for k, v in result.allowed.items()},
            # Tax, credits, discounts, refunds...: listed beside the usage, never in it.
            "other": {k: str(dollars(v)) for k, v in sorted(other.items())},
            "other_total": str(dollars(sum(other.values()))),
        }
        row.warnings = warnings
        row.state, row.error, row.error_line, row.error_column = UsageState.DONE, "", None, ""
        row.reconciled_at, row.reconciled_mapping = timezone.now(), dict(row.mapping)
        row.save()
    return row


def _reconcile_bill(
    row: UsageUpload, contract: Contract
) -> tuple[Result, dict[str, int], list[dict[str, Any]]]:
    """Read the bill with its confirmed settings (refreshing the stored inspection), rename
    billed ids to contract nodes through the confirmed node map, and reconcile its usage,
    egress and fee lines only. Returns the result, the other charges' totals per class, and
    what could not be checked (outages on nodes no billed id is, lines of ids that are no
    contract node)."""
    reservation = row.reservation
    nodes = list(contract.nodes)  # the reservation's nodes, as contract_for read them
    bill = _inspect(
        row, row.read_bytes(), nodes=nodes, node_gpus=selectors.node_gpus(reservation=reservation)
    )
    if bill is None:
        inspected = row.inspection
        raise UsageError(str(inspected.get("error") or "The file cannot be read."))
    lines, node_map = bills.priceable_lines(bill, mapping=row.mapping, nodes=nodes)
    result = reconcile(lines, contract, max_listed=MAX_LISTED)
    other: dict[str, int] = {}
    for u in bill.other:
        other[u.charge or u.kind] = other.get(u.charge or u.kind, 0) + (u.amount or 0)
    return result, other, _warnings(bill.lines, node_map, nodes, contract)


def _warnings(
    lines: list[UsageLine], node_map: dict[str, str], nodes: list[str], contract: Contract
) -> list[dict[str, Any]]:
    """What the reconciliation could not check, said rather than silenced."""
    out: list[dict[str, Any]] = []
    if not nodes:
        out.append(
            {
                "kind": "no-nodes",
                "node": "",
                "lines": [],
                "count": 0,
                "message": "No node of this reservation is named yet (the burn-in named no "
                "host or node): the billed ids are checked as billed, and an outage of a named "
                "node matches no line.",
            }
        )
    unmatched: dict[str, list[int]] = {}
    for u in lines:
        if u.kind == GPU and u.node and u.node not in node_map:
            unmatched.setdefault(u.node, []).append(u.line)
    for billed, found in unmatched.items():
        if not nodes:
            break
        out.append(
            {
                "kind": "unmatched-billed",
                "node": billed,
                "lines": found[:20],
                "count": len(found),
                "message": f"'{billed}' is billed on {len(found)} line(s) (first: line "
                f"{', '.join(str(n) for n in found[:5])}) but is matched to no node of this "
                "reservation: confirm which node it is, or dispute the lines.",
            }
        )
    matched = set(node_map.values())
    for outage in contract.outages:
        if outage.node and outage.node not in matched:
            out.append(
                {
                    "kind": "unmatched-outage",
                    "node": outage.node,
                    "lines": [],
                    "count": 0,
                    "message": f"{outage.label} took '{outage.node}' out of service, but no "
                    f"billed id is matched to '{outage.node}': lines billed for it during the "
                    "outage cannot be found. Confirm the node identity table.",
                }
            )
    return out


def usage_mark_error(*, upload_id: int, error: BaseException) -> None:
    """A crash the parser did not foresee, or the time limit: the row says so (with Retry)
    rather than staying 'reconciling'."""
    if isinstance(error, SoftTimeLimitExceeded):
        limit = settings.CELERY_TASK_SOFT_TIME_LIMIT
        reason = f"The reconciliation ran past its time limit ({limit} s) and was stopped."
    else:
        reason = f"The reconciliation failed unexpectedly ({type(error).__name__})."
    UsageUpload.objects.filter(pk=upload_id).update(state=UsageState.ERROR, error=reason)
