"""What a reservation delivered against what the comparison predicted for its bid at the award.

Delivered: the delivery report (availability, credits, lost GPU-hours, the realised cost per
useful GPU-hour). Predicted: the awarded revision's score from the last scoring run that had
finished by the award. The difference is explained by the three inputs that drive it: node
MTBF, the cost of a restart and the price actually paid.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from acceptance.models import Reservation, ReservationStatus
from billing.models import UsageState, UsageUpload
from delivery.selectors import Delivery, delivery_for
from delivery.terms import term_bounds
from engine.delivery.availability import Figure, Report, month_bounds
from engine.formatting import percent, usd
from evaluation.models import BidScore, ScoringStatus


@dataclass
class Predicted:
    cost_per_useful: float | None
    price: float
    node_mtbf_hours: float
    mtbf_from: str
    restart_cost_seconds: float
    goodput: float


@dataclass
class Realised:
    """The delivered figures of one reservation, all read from one report (the reconciled bills
    applied when they cover the term so far), so a value and its working always agree."""

    report: Report
    predicted: Predicted | None
    reasons: list[str] = field(default_factory=list)
    # With disputed incidents: each party's reading ("buyer", "provider" → its report), how
    # many are disputed, and whose reading `report` is ("" when neither's).
    readings: dict[str, Report] = field(default_factory=dict)
    disputed: int = 0
    totals_reading: str = ""

    @property
    def availability_pct(self) -> Decimal | None:
        return self.report.availability_pct.value

    @property
    def credits(self) -> Decimal:
        return self.report.credits.value or Decimal(0)

    @property
    def lost_gpu_hours(self) -> Decimal:
        return self.report.lost_gpu_hours.value or Decimal(0)

    @property
    def useful_gpu_hours(self) -> Decimal | None:
        return self.report.useful_gpu_hours.value

    @property
    def paid(self) -> Decimal | None:
        return self.report.paid.value

    @property
    def cost(self) -> Figure:
        """The realised cost per useful GPU-hour with its working."""
        return self.report.cost_per_useful_gpu_hour

    @property
    def cost_per_useful(self) -> Decimal | None:
        return self.cost.value

    @property
    def difference_pct(self) -> float | None:
        if self.cost_per_useful is None or not self.predicted or not self.predicted.cost_per_useful:
            return None
        return (float(self.cost_per_useful) / self.predicted.cost_per_useful - 1) * 100


def predictions(reservations: Iterable[Reservation]) -> dict[int, Predicted]:
    """Each reservation's prediction at its award, in one query."""
    rows = {r.bid_revision_id: r for r in reservations}
    out: dict[int, Predicted] = {}
    scores = (
        BidScore.objects.filter(revision_id__in=list(rows), run__status=ScoringStatus.DONE)
        .select_related("run")
        .only("revision_id", "cost", "run__finished_at")
        .order_by("revision_id", "-run__finished_at", "-pk")
    )
    for score in scores:
        reservation = rows[score.revision_id]
        finished = score.run.finished_at
        if reservation.pk in out or finished is None or finished > reservation.awarded_at:
            continue
        cost: dict[str, Any] = score.cost
        out[reservation.pk] = Predicted(
            cost_per_useful=cost.get("effective_price_per_useful_gpu_hour"),
            price=float(
                cost.get("all_in_price_per_gpu_hour") or cost.get("price_per_gpu_hour") or 0
            ),
            node_mtbf_hours=float(cost.get("node_mtbf_hours") or 0),
            mtbf_from=str(cost.get("node_mtbf_provenance") or cost.get("node_mtbf_source") or ""),
            restart_cost_seconds=float(cost.get("restart_cost_seconds") or 0),
            goodput=float(cost.get("goodput") or 0),
        )
    return out


def delivered(*, reservation: Reservation, now: datetime) -> tuple[Delivery, str]:
    """The reservation's delivery worked once as of `now`: on what the reconciled bills allow
    when they cover every month so far, else at the agreed rate; and a sentence saying which."""
    term = term_bounds(reservation)
    months: list[str] = []
    if term is not None:
        start, end = term
        months = [f"{a:%Y-%m}" for a, _b in month_bounds(start, max(start, min(end, now)))]
    billed, note = _billed(reservation, months)
    return delivery_for(reservation=reservation, now=now, billed_usd=billed), note


def realised_from(delivery: Delivery, *, note: str, predicted: Predicted | None) -> Realised | None:
    """The delivered figures of a delivery `delivered` worked, with why they differ from the
    prediction (and any input the report found wrong)."""
    reservation, report = delivery.reservation, delivery.report
    if reservation.status != ReservationStatus.ACCEPTED or report is None:
        return None
    realised = Realised(
        report=report,
        predicted=predicted,
        readings=delivery.readings,
        disputed=len(delivery.disputed),
        totals_reading=delivery.totals_reading,
    )
    realised.reasons = [*_reasons(realised, report), note, *report.notes]
    return realised


def realised_for(
    reservation: Reservation, *, now: datetime, predicted: Predicted | None
) -> Realised | None:
    if reservation.status != ReservationStatus.ACCEPTED:
        return None
    delivery, note = delivered(reservation=reservation, now=now)
    return realised_from(delivery, note=note, predicted=predicted)


def _billed(reservation: Reservation, months: list[str]) -> tuple[Decimal | None, str]:
    """What the reconciled bills allow, when they cover every month of the term so far; else
    None (the agreed rate stands in), with a sentence saying which was used."""
    uploads = UsageUpload.objects.filter(reservation=reservation, state=UsageState.DONE)
    totals = list(uploads.values_list("totals", flat=True))
    covered = {month for t in totals for month in (t.get("credit_months") or [])}
    missing = [m for m in months if m not in covered]
    if totals and not missing:
        allowed = sum((Decimal(t.get("allowed") or 0) for t in totals), Decimal(0))
        return allowed, (
            f"Paid: what {len(totals)} reconciled bill(s) allow for {', '.join(months)}, less "
            "the credits."
        )
    if not totals:
        return None, "Paid: at the agreed rate; no bill has been reconciled yet."
    return None, (
        f"Paid: at the agreed rate; the reconciled bills do not cover {', '.join(missing)} yet."
    )


def _reasons(realised: Realised, report: Report) -> list[str]:
    """Why the realised cost differs from the prediction, in the model's own terms."""
    p = realised.predicted
    if p is None:
        return ["No scoring run had finished by the award, so there is no prediction to compare."]
    reasons: list[str] = []
    accepted = report.accepted_gpu_hours.value or Decimal(0)
    lost = realised.lost_gpu_hours
    if accepted > 0:
        lost_share = float(lost / accepted) * 100
        predicted_lost = (1 - p.goodput) * 100
        reasons.append(
            f"Lost time: {percent(lost_share, places=2)} of the accepted GPU-hours were lost to "
            f"incidents, against {percent(predicted_lost, places=2)} the model expected (node MTBF "
            f"{p.node_mtbf_hours:,.0f} h, {p.mtbf_from or 'as scored'}; a restart costing "
            f"{p.restart_cost_seconds / 3600:.2f} h)."
        )
    if realised.paid is not None and accepted > 0:
        paid_rate = realised.paid / accepted
        reasons.append(
            f"Price: {usd(paid_rate, places=4)} paid per accepted GPU-hour after credits, against "
            f"an all-in {usd(p.price, places=4)} predicted."
        )
    return reasons
