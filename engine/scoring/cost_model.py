"""The goodput cost model: what a useful GPU-hour really costs on a given bid.

Sources for the formulas and defaults (details and reasoning in docs/scoring.md):
- Young, J. W. (1974). "A first order approximation to the optimum checkpoint interval."
  Communications of the ACM 17(9), 530-531:  t = sqrt(2 C M).
- Daly, J. T. (2006). "A higher order estimate of the optimum checkpoint interval for restart
  dumps." Future Generation Computer Systems 22(3), 303-312.
The node MTBF and restart-cost inputs (defaults, the Llama 3 source, the track record) are
chosen in `reliability`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .inputs import BidOffer, RequestProfile

# Defaults, sources and the track record's rules live in `reliability`.
from .reliability import (
    HOURS_PER_MONTH,
    INTERVAL_BUYER,
    INTERVAL_OPTIMUM,
    mtbf_choice,
    restart_parts,
)


def young_interval(checkpoint_seconds: float, mtbf_seconds: float) -> float:
    """Young (1974): t = sqrt(2 C M)."""
    return math.sqrt(2.0 * checkpoint_seconds * mtbf_seconds)


def daly_interval(checkpoint_seconds: float, mtbf_seconds: float) -> float:
    """Daly (2006) higher-order optimum; falls back to M once C reaches 2M."""
    delta, m = checkpoint_seconds, mtbf_seconds
    if delta >= 2.0 * m:
        return m
    x = delta / (2.0 * m)
    return math.sqrt(2.0 * delta * m) * (1.0 + math.sqrt(x) / 3.0 + x / 9.0) - delta


def first_order_goodput(
    *,
    interval_seconds: float,
    checkpoint_seconds: float,
    mtbf_seconds: float,
    restart_seconds: float,
) -> float:
    """Share of wall time spent on useful steps: 1 - C/t - (t/2 + R)/M, clamped to [0, 1]."""
    lost = checkpoint_seconds / interval_seconds
    lost += (interval_seconds / 2.0 + restart_seconds) / mtbf_seconds
    return min(1.0, max(0.0, 1.0 - lost))


@dataclass(frozen=True)
class CostBreakdown:
    """Every input and intermediate of one bid's cost model; times in seconds unless named."""

    label: str
    gpu_count: int
    nodes: int
    term_hours: float
    price_per_gpu_hour: float
    fees_usd: float
    egress_usd: float
    node_mtbf_hours: float
    node_mtbf_source: str
    cluster_mtbf_hours: float
    checkpoint_write_seconds: float
    detection_seconds: float
    support_wait_seconds: float
    repair_path: str
    repair_seconds: float
    revalidation_seconds: float
    restart_seconds: float
    restart_cost_seconds: float
    young_interval_seconds: float
    daly_interval_seconds: float
    interval_seconds: float
    interval_source: str
    goodput: float
    optimum_goodput: float
    overhead_per_gpu_hour: float
    all_in_price_per_gpu_hour: float
    effective_price_per_useful_gpu_hour: float | None
    total_cost_usd: float
    useful_gpu_hours: float
    lost_gpu_hours_per_incident: float
    incidents_per_month: float
    lost_gpu_hours_per_month: float
    run_length_hours: float
    expected_incidents_in_run: float
    run_wall_hours: float | None
    run_fits_term: bool
    # Where node MTBF and the restart parts came from, in words (see `explain`).
    node_mtbf_provenance: str
    node_mtbf_formula: str
    detection_from: str
    support_wait_from: str
    repair_from: str
    revalidation_from: str

    @property
    def cluster_mtbf_seconds(self) -> float:
        return self.cluster_mtbf_hours * 3600.0

    def explain(self) -> list[tuple[str, str, float | str | None]]:
        """(label, formula with its inputs, value) rows for the "how was this computed" view."""
        h = 3600.0
        eff = self.effective_price_per_useful_gpu_hour
        return [
            ("Node MTBF (h)", self.node_mtbf_formula, self.node_mtbf_hours),
            (
                "Cluster MTBF M (h)",
                f"node MTBF / nodes = {self.node_mtbf_hours:,.1f} / {self.nodes}",
                self.cluster_mtbf_hours,
            ),
            (
                "Checkpoint write C (s)",
                "from the request's workload profile",
                self.checkpoint_write_seconds,
            ),
            ("Detection (s)", self.detection_from, self.detection_seconds),
            ("Support wait (s)", self.support_wait_from, self.support_wait_seconds),
            ("Repair (s)", self.repair_from, self.repair_seconds),
            ("Revalidation (s)", self.revalidation_from, self.revalidation_seconds),
            ("Restart and load (s)", "from the request's workload profile", self.restart_seconds),
            (
                "Restart cost R (s)",
                "detection + support wait + repair + revalidation + restart = "
                f"{self.detection_seconds:,.0f} + {self.support_wait_seconds:,.0f} + "
                f"{self.repair_seconds:,.0f} + {self.revalidation_seconds:,.0f} + "
                f"{self.restart_seconds:,.0f}",
                self.restart_cost_seconds,
            ),
            (
                "Young interval (s)",
                f"sqrt(2 C M) = sqrt(2 x {self.checkpoint_write_seconds:,.0f} x "
                f"{self.cluster_mtbf_seconds:,.0f})",
                self.young_interval_seconds,
            ),
            (
                "Optimum interval (s)",
                "Daly 2006: sqrt(2CM)[1 + sqrt(C/2M)/3 + (C/2M)/9] - C, or M when C >= 2M; "
                f"goodput there {self.optimum_goodput:.4%}",
                self.daly_interval_seconds,
            ),
            ("Checkpoint interval t (s)", self._interval_from(), self.interval_seconds),
            (
                "Goodput",
                f"1 - C/t - (t/2 + R)/M = 1 - {self.checkpoint_write_seconds:,.0f}/"
                f"{self.interval_seconds:,.0f} - ({self.interval_seconds / 2:,.0f} + "
                f"{self.restart_cost_seconds:,.0f})/{self.cluster_mtbf_seconds:,.0f}, "
                "within [0, 1]",
                self.goodput,
            ),
            (
                "Fees and egress per GPU-hour ($)",
                f"({self.fees_usd:,.2f} + {self.egress_usd:,.2f}) / "
                f"({self.gpu_count} GPUs x {self.term_hours:,.0f} h)",
                self.overhead_per_gpu_hour,
            ),
            (
                "Effective price per useful GPU-hour ($)",
                f"({self.price_per_gpu_hour:,.4f} + {self.overhead_per_gpu_hour:,.4f}) / "
                f"{self.goodput:.4f}" + (" (no useful work: goodput is 0)" if eff is None else ""),
                eff,
            ),
            (
                "Total cost of the term ($)",
                f"price x {self.gpu_count} GPUs x {self.term_hours:,.0f} h + fees + egress",
                self.total_cost_usd,
            ),
            (
                "Lost GPU-hours per incident",
                f"(t/2 + R) x GPUs = ({self.interval_seconds / 2:,.0f} + "
                f"{self.restart_cost_seconds:,.0f}) s / {h:,.0f} x {self.gpu_count}",
                self.lost_gpu_hours_per_incident,
            ),
            (
                "Incidents per month",
                f"{HOURS_PER_MONTH:,.0f} h / M = {HOURS_PER_MONTH:,.0f} / "
                f"{self.cluster_mtbf_hours:,.1f}",
                self.incidents_per_month,
            ),
            (
                "Lost GPU-hours per month",
                "lost GPU-hours per incident x incidents per month",
                self.lost_gpu_hours_per_month,
            ),
            (
                "Wall-clock hours for the run",
                f"run length / goodput = {self.run_length_hours:,.0f} / {self.goodput:.4f}",
                self.run_wall_hours,
            ),
        ]

    def _interval_from(self) -> str:
        if self.interval_source == INTERVAL_BUYER:
            return (
                f"the buyer's interval, {self.interval_seconds / 60:,.0f} min, from the request: "
                "goodput is worked at the interval the job really uses, not the optimum"
            )
        return "no interval on the request: the optimum above"


def compute_cost(*, request: RequestProfile, bid: BidOffer) -> CostBreakdown:
    """Run the cost model for one bid against the buyer's workload."""
    mtbf = mtbf_choice(bid)
    cluster_mtbf_h = mtbf.hours / bid.nodes
    m = cluster_mtbf_h * 3600.0
    c = float(request.checkpoint_write_seconds)

    parts = restart_parts(bid)
    restart = float(request.restart_seconds)
    r = parts.detection + parts.support_wait + parts.repair + parts.revalidation + restart

    young = young_interval(c, m)
    daly = daly_interval(c, m)
    buyer_t = request.checkpoint_interval_seconds
    t = float(buyer_t) if buyer_t is not None else daly
    goodput = first_order_goodput(
        interval_seconds=t, checkpoint_seconds=c, mtbf_seconds=m, restart_seconds=r
    )
    optimum_goodput = first_order_goodput(
        interval_seconds=daly, checkpoint_seconds=c, mtbf_seconds=m, restart_seconds=r
    )

    gpus = request.gpu_count
    term_h = request.term_hours
    price = float(bid.price_per_gpu_hour)
    fees, egress = float(bid.fees_usd), float(bid.egress_usd)
    overhead = (fees + egress) / (gpus * term_h)
    all_in = price + overhead
    effective = all_in / goodput if goodput > 0 else None

    lost_per_incident = (t / 2.0 + r) / 3600.0 * gpus
    per_month = HOURS_PER_MONTH / cluster_mtbf_h
    run_h = float(request.run_length_hours)
    run_wall = run_h / goodput if goodput > 0 else None
    return CostBreakdown(
        label=bid.label,
        gpu_count=gpus,
        nodes=bid.nodes,
        term_hours=term_h,
        price_per_gpu_hour=price,
        fees_usd=fees,
        egress_usd=egress,
        node_mtbf_hours=mtbf.hours,
        node_mtbf_source=mtbf.source,
        cluster_mtbf_hours=cluster_mtbf_h,
        checkpoint_write_seconds=c,
        detection_seconds=parts.detection,
        support_wait_seconds=parts.support_wait,
        repair_path=parts.repair_path,
        repair_seconds=parts.repair,
        revalidation_seconds=parts.revalidation,
        restart_seconds=restart,
        restart_cost_seconds=r,
        young_interval_seconds=young,
        daly_interval_seconds=daly,
        interval_seconds=t,
        interval_source=INTERVAL_BUYER if buyer_t is not None else INTERVAL_OPTIMUM,
        goodput=goodput,
        optimum_goodput=optimum_goodput,
        overhead_per_gpu_hour=overhead,
        all_in_price_per_gpu_hour=all_in,
        effective_price_per_useful_gpu_hour=effective,
        total_cost_usd=price * gpus * term_h + fees + egress,
        useful_gpu_hours=gpus * term_h * goodput,
        lost_gpu_hours_per_incident=lost_per_incident,
        incidents_per_month=per_month,
        lost_gpu_hours_per_month=lost_per_incident * per_month,
        run_length_hours=run_h,
        expected_incidents_in_run=run_h / cluster_mtbf_h,
        run_wall_hours=run_wall,
        run_fits_term=run_wall is not None and run_wall <= term_h,
        node_mtbf_provenance=mtbf.provenance,
        node_mtbf_formula=mtbf.formula,
        detection_from=parts.detection_from,
        support_wait_from=parts.support_wait_from,
        repair_from=parts.repair_from,
        revalidation_from=parts.revalidation_from,
    )


@dataclass(frozen=True)
class GoodputCurve:
    """Goodput against checkpoint interval for a chart: the interval the model used (the
    buyer's, or the optimum) and the Daly optimum as a comparison point."""

    label: str
    points: tuple[tuple[float, float], ...]
    chosen_interval_seconds: float
    chosen_goodput: float
    young_interval_seconds: float
    optimum_interval_seconds: float
    optimum_goodput: float


def goodput_curve(request: RequestProfile, bid: BidOffer, points: int = 40) -> GoodputCurve:
    """`points` log-spaced intervals from a tenth of the shorter of the chosen and optimum
    intervals to ten times the longer, so both sit on the curve."""
    if points < 2:
        raise ValueError("points must be at least 2")
    cost = compute_cost(request=request, bid=bid)
    chosen, optimum = cost.interval_seconds, cost.daly_interval_seconds
    lo, hi = math.log(min(chosen, optimum) / 10.0), math.log(max(chosen, optimum) * 10.0)
    pairs = []
    for i in range(points):
        t = math.exp(lo + (hi - lo) * i / (points - 1))
        g = first_order_goodput(
            interval_seconds=t,
            checkpoint_seconds=cost.checkpoint_write_seconds,
            mtbf_seconds=cost.cluster_mtbf_seconds,
            restart_seconds=cost.restart_cost_seconds,
        )
        pairs.append((t, g))
    return GoodputCurve(
        label=bid.label,
        points=tuple(pairs),
        chosen_interval_seconds=chosen,
        chosen_goodput=cost.goodput,
        young_interval_seconds=cost.young_interval_seconds,
        optimum_interval_seconds=optimum,
        optimum_goodput=cost.optimum_goodput,
    )
