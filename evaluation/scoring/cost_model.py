"""The goodput cost model: what a useful GPU-hour really costs on a given bid.

Sources for the formulas and defaults (details and reasoning in docs/scoring.md):
- Young, J. W. (1974). "A first order approximation to the optimum checkpoint interval."
  Communications of the ACM 17(9), 530-531:  t = sqrt(2 C M).
- Daly, J. T. (2006). "A higher order estimate of the optimum checkpoint interval for restart
  dumps." Future Generation Computer Systems 22(3), 303-312.
- Llama Team, AI @ Meta (2024). "The Llama 3 Herd of Models", arXiv:2407.21783, section 3.3.4:
  419 unexpected interruptions in a 54-day snapshot of Llama 3 405B pre-training on
  16,384 H100 GPUs (2,048 servers of 8).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .inputs import BidOffer, RequestProfile

# --- Default node MTBF, derived from Meta's published Llama 3 405B training figures ---------
LLAMA3_GPUS = 16_384
LLAMA3_GPUS_PER_NODE = 8
LLAMA3_DAYS = 54
LLAMA3_UNEXPECTED_INTERRUPTIONS = 419
LLAMA3_NODES = LLAMA3_GPUS // LLAMA3_GPUS_PER_NODE
#: node-hours observed per unexpected job interruption: 2,048 x 54 x 24 / 419 = about 6,335 h.
DEFAULT_NODE_MTBF_HOURS = LLAMA3_NODES * LLAMA3_DAYS * 24 / LLAMA3_UNEXPECTED_INTERRUPTIONS

MTBF_DECLARED = "declared"
MTBF_DEFAULT = "default_llama3_2024"

# --- Restart-cost defaults (seconds); docs/scoring.md explains each -------------------------
#: PyTorch's NCCL process-group timeout defaults to 10 minutes: a hang surfaces after that.
DEFAULT_DETECTION_SECONDS = 600.0
#: A node health daemon with automatic drain sees Xid/link faults and fails the job sooner.
HEALTH_CHECK_DETECTION_SECONDS = 300.0
#: Draining the failed node and bringing a spare that already sits on the job's fabric.
HOT_SPARE_SWAP_SECONDS = 1_800.0
#: DCGM diagnostics on the returned node plus a multi-node NCCL run against the baseline.
DEFAULT_REVALIDATION_SECONDS = 1_800.0
#: 365 x 24 / 12: the month used for "per month" figures.
HOURS_PER_MONTH = 730.0

# Support windows as (open hours per day, open days per week); 24x7 never waits.
_COVERAGE_WINDOWS: dict[str, tuple[float, int]] = {
    "24x7": (24.0, 7),
    "extended": (12.0, 7),  # e.g. 08:00-20:00 every day
    "business_hours": (10.0, 5),  # e.g. 08:00-18:00 Monday to Friday
}

REPAIR_HOT_SPARE = "hot_spare"
REPAIR_REPLACEMENT = "node_replacement"


def expected_support_wait_hours(coverage: str) -> float:
    """Mean wait until support is staffed, for a failure at a uniformly random time of week.

    A closed gap of g hours is hit with probability g/168 and waited out g/2 on average,
    so the mean wait is the sum of g**2 / 2 over the week's gaps, divided by 168.
    """
    open_hours, open_days = _COVERAGE_WINDOWS[coverage]
    if open_hours >= 24 and open_days == 7:
        return 0.0
    night = 24.0 - open_hours
    gaps = [night] * (open_days - 1) + [night + 24.0 * (7 - open_days)]
    return sum(g * g / 2 for g in gaps) / 168.0


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
    goodput: float
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

    @property
    def cluster_mtbf_seconds(self) -> float:
        return self.cluster_mtbf_hours * 3600.0

    def explain(self) -> list[tuple[str, str, float | str | None]]:
        """(label, formula with its inputs, value) rows for the "how was this computed" view."""
        h = 3600.0
        mtbf_from = (
            "declared by the provider"
            if self.node_mtbf_source == MTBF_DECLARED
            else (
                f"default: {LLAMA3_NODES:,} nodes x {LLAMA3_DAYS} d x 24 h / "
                f"{LLAMA3_UNEXPECTED_INTERRUPTIONS} interruptions (Llama 3, Meta 2024)"
            )
        )
        repair_from = (
            "hot spare in the job's fabric domain"
            if self.repair_path == REPAIR_HOT_SPARE
            else "provider's node replacement time"
        )
        eff = self.effective_price_per_useful_gpu_hour
        return [
            ("Node MTBF (h)", mtbf_from, self.node_mtbf_hours),
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
            (
                "Detection (s)",
                "watchdog timeout, or health checks with auto-drain",
                self.detection_seconds,
            ),
            (
                "Support wait (s)",
                "mean wait for staffed support under the coverage hours",
                self.support_wait_seconds,
            ),
            ("Repair (s)", repair_from, self.repair_seconds),
            (
                "Revalidation (s)",
                "diagnostics + multi-node NCCL against the baseline",
                self.revalidation_seconds,
            ),
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
                "Checkpoint interval t (s)",
                "Daly 2006: sqrt(2CM)[1 + sqrt(C/2M)/3 + (C/2M)/9] - C, or M when C >= 2M",
                self.interval_seconds,
            ),
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


def node_mtbf(bid: BidOffer) -> tuple[float, str]:
    """The bid's declared node MTBF, or the Llama 3 derived default; with its source."""
    if bid.declared_node_mtbf_hours is not None:
        return float(bid.declared_node_mtbf_hours), MTBF_DECLARED
    return DEFAULT_NODE_MTBF_HOURS, MTBF_DEFAULT


def has_hot_spare(bid: BidOffer) -> bool:
    return bid.spares_count > 0 and bid.spares_location == "same_fabric_domain"


def compute_cost(*, request: RequestProfile, bid: BidOffer) -> CostBreakdown:
    """Run the cost model for one bid against the buyer's workload."""
    mtbf_h, mtbf_source = node_mtbf(bid)
    cluster_mtbf_h = mtbf_h / bid.nodes
    m = cluster_mtbf_h * 3600.0
    c = float(request.checkpoint_write_seconds)

    hot_spare = has_hot_spare(bid)
    detection = (
        HEALTH_CHECK_DETECTION_SECONDS
        if bid.health_checks_auto_drain
        else DEFAULT_DETECTION_SECONDS
    )
    # An automated swap onto a hot spare needs nobody on shift; every other path waits for staff.
    automated = hot_spare and bid.health_checks_auto_drain
    support_wait = 0.0 if automated else expected_support_wait_hours(bid.coverage) * 3600.0
    repair = HOT_SPARE_SWAP_SECONDS if hot_spare else float(bid.node_replacement_hours) * 3600.0
    restart = float(request.restart_seconds)
    r = detection + support_wait + repair + DEFAULT_REVALIDATION_SECONDS + restart

    young = young_interval(c, m)
    daly = daly_interval(c, m)
    goodput = first_order_goodput(
        interval_seconds=daly, checkpoint_seconds=c, mtbf_seconds=m, restart_seconds=r
    )

    gpus = request.gpu_count
    term_h = request.term_hours
    price = float(bid.price_per_gpu_hour)
    fees, egress = float(bid.fees_usd), float(bid.egress_usd)
    overhead = (fees + egress) / (gpus * term_h)
    all_in = price + overhead
    effective = all_in / goodput if goodput > 0 else None

    lost_per_incident = (daly / 2.0 + r) / 3600.0 * gpus
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
        node_mtbf_hours=mtbf_h,
        node_mtbf_source=mtbf_source,
        cluster_mtbf_hours=cluster_mtbf_h,
        checkpoint_write_seconds=c,
        detection_seconds=detection,
        support_wait_seconds=support_wait,
        repair_path=REPAIR_HOT_SPARE if hot_spare else REPAIR_REPLACEMENT,
        repair_seconds=repair,
        revalidation_seconds=DEFAULT_REVALIDATION_SECONDS,
        restart_seconds=restart,
        restart_cost_seconds=r,
        young_interval_seconds=young,
        daly_interval_seconds=daly,
        interval_seconds=daly,
        goodput=goodput,
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
    )


@dataclass(frozen=True)
class GoodputCurve:
    """Goodput against checkpoint interval for a chart, with the interval the model chose."""

    label: str
    points: tuple[tuple[float, float], ...]
    chosen_interval_seconds: float
    chosen_goodput: float
    young_interval_seconds: float


def goodput_curve(request: RequestProfile, bid: BidOffer, points: int = 40) -> GoodputCurve:
    """`points` log-spaced intervals from a tenth to ten times the chosen one."""
    if points < 2:
        raise ValueError("points must be at least 2")
    cost = compute_cost(request=request, bid=bid)
    chosen = cost.interval_seconds
    lo, hi = math.log(chosen / 10.0), math.log(chosen * 10.0)
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
    )
