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
from .offer_kinds import describe

# Defaults, sources and the track record's rules live in `reliability`.
from .reliability import (
    HOURS_PER_MONTH,
    INTERVAL_BUYER,
    INTERVAL_OPTIMUM,
    MtbfChoice,
    RestartParts,
    mtbf_choice,
    restart_parts,
)

SECONDS_PER_HOUR = 3600.0


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
    # The offer kind in words, its price per slice-hour and the share of a GPU a slice is;
    # `price_per_gpu_hour` above is the price per whole-device-equivalent hour.
    offer: str
    price_per_slice_hour: float
    device_fraction: float

    @property
    def cluster_mtbf_seconds(self) -> float:
        return self.cluster_mtbf_hours * SECONDS_PER_HOUR

    def explain(self) -> list[tuple[str, str, float | str | None]]:
        """(label, formula with its inputs, value) rows for the "how was this computed" view."""
        return [
            *self._failure_rows(),
            *self._interval_rows(),
            *self._price_rows(),
            *self._loss_rows(),
        ]

    def _failure_rows(self) -> list[tuple[str, str, float | str | None]]:
        """How often the cluster fails and what each failure costs before work resumes."""
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
        ]

    def _interval_rows(self) -> list[tuple[str, str, float | str | None]]:
        """The checkpoint interval and the goodput it gives."""
        return [
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
        ]

    def _price_rows(self) -> list[tuple[str, str, float | str | None]]:
        """What a useful GPU-hour and the whole term cost."""
        eff = self.effective_price_per_useful_gpu_hour
        kind = []
        if self.device_fraction != 1:
            kind = [
                (
                    "Price per whole-device-equivalent hour ($)",
                    f"{self.price_per_slice_hour:,.4f} per slice-hour / "
                    f"{self.device_fraction:.4f} of a GPU ({self.offer})",
                    self.price_per_gpu_hour,
                )
            ]
        return [
            *kind,
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
        ]

    def _loss_rows(self) -> list[tuple[str, str, float | str | None]]:
        """GPU-hours lost to failures, and how long the buyer's run takes on this bid."""
        return [
            (
                "Lost GPU-hours per incident",
                f"(t/2 + R) x GPUs = ({self.interval_seconds / 2:,.0f} + "
                f"{self.restart_cost_seconds:,.0f}) s / {SECONDS_PER_HOUR:,.0f} x {self.gpu_count}",
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


@dataclass(frozen=True)
class _Failures:
    """How often the cluster fails (M) and what a failure costs before work resumes (R)."""

    mtbf: MtbfChoice
    parts: RestartParts
    cluster_mtbf_hours: float
    mtbf_seconds: float
    checkpoint_seconds: float
    restart_seconds: float
    restart_cost_seconds: float


@dataclass(frozen=True)
class _Interval:
    """The checkpoint interval the job uses and the goodput there and at the optimum."""

    young: float
    daly: float
    seconds: float
    source: str
    goodput: float
    optimum_goodput: float


@dataclass(frozen=True)
class _Prices:
    """What the bid charges, per GPU-hour and for the term, and per useful GPU-hour."""

    price: float
    fees: float
    egress: float
    overhead: float
    all_in: float
    effective: float | None
    total: float


@dataclass(frozen=True)
class _Losses:
    """GPU-hours lost to failures, and the buyer's run measured against them."""

    per_incident: float
    incidents_per_month: float
    run_hours: float
    run_wall_hours: float | None


def _failures(*, request: RequestProfile, bid: BidOffer) -> _Failures:
    mtbf = mtbf_choice(bid)
    cluster_mtbf_h = mtbf.hours / bid.nodes
    parts = restart_parts(bid)
    restart = float(request.restart_seconds)
    return _Failures(
        mtbf=mtbf,
        parts=parts,
        cluster_mtbf_hours=cluster_mtbf_h,
        mtbf_seconds=cluster_mtbf_h * SECONDS_PER_HOUR,
        checkpoint_seconds=float(request.checkpoint_write_seconds),
        restart_seconds=restart,
        restart_cost_seconds=(
            parts.detection + parts.support_wait + parts.repair + parts.revalidation + restart
        ),
    )


def _interval(*, request: RequestProfile, failures: _Failures) -> _Interval:
    c, m, r = failures.checkpoint_seconds, failures.mtbf_seconds, failures.restart_cost_seconds
    daly = daly_interval(c, m)
    buyer_t = request.checkpoint_interval_seconds
    t = float(buyer_t) if buyer_t is not None else daly
    return _Interval(
        young=young_interval(c, m),
        daly=daly,
        seconds=t,
        source=INTERVAL_BUYER if buyer_t is not None else INTERVAL_OPTIMUM,
        goodput=first_order_goodput(
            interval_seconds=t, checkpoint_seconds=c, mtbf_seconds=m, restart_seconds=r
        ),
        optimum_goodput=first_order_goodput(
            interval_seconds=daly, checkpoint_seconds=c, mtbf_seconds=m, restart_seconds=r
        ),
    )


def _prices(*, request: RequestProfile, bid: BidOffer, goodput: float) -> _Prices:
    gpus, term_h = request.gpu_count, request.term_hours
    price = bid.price_per_device_hour
    fees, egress = float(bid.fees_usd), float(bid.egress_usd)
    overhead = (fees + egress) / (gpus * term_h)
    all_in = price + overhead
    return _Prices(
        price=price,
        fees=fees,
        egress=egress,
        overhead=overhead,
        all_in=all_in,
        effective=all_in / goodput if goodput > 0 else None,
        total=price * gpus * term_h + fees + egress,
    )


def _losses(*, request: RequestProfile, failures: _Failures, interval: _Interval) -> _Losses:
    run_h = float(request.run_length_hours)
    return _Losses(
        per_incident=(interval.seconds / 2.0 + failures.restart_cost_seconds)
        / SECONDS_PER_HOUR
        * request.gpu_count,
        incidents_per_month=HOURS_PER_MONTH / failures.cluster_mtbf_hours,
        run_hours=run_h,
        run_wall_hours=run_h / interval.goodput if interval.goodput > 0 else None,
    )


def compute_cost(*, request: RequestProfile, bid: BidOffer) -> CostBreakdown:
    """Run the cost model for one bid against the buyer's workload."""
    failures = _failures(request=request, bid=bid)
    interval = _interval(request=request, failures=failures)
    prices = _prices(request=request, bid=bid, goodput=interval.goodput)
    losses = _losses(request=request, failures=failures, interval=interval)
    mtbf, parts, term_h = failures.mtbf, failures.parts, request.term_hours
    return CostBreakdown(
        label=bid.label,
        gpu_count=request.gpu_count,
        nodes=bid.nodes,
        term_hours=term_h,
        price_per_gpu_hour=prices.price,
        fees_usd=prices.fees,
        egress_usd=prices.egress,
        node_mtbf_hours=mtbf.hours,
        node_mtbf_source=mtbf.source,
        cluster_mtbf_hours=failures.cluster_mtbf_hours,
        checkpoint_write_seconds=failures.checkpoint_seconds,
        detection_seconds=parts.detection,
        support_wait_seconds=parts.support_wait,
        repair_path=parts.repair_path,
        repair_seconds=parts.repair,
        revalidation_seconds=parts.revalidation,
        restart_seconds=failures.restart_seconds,
        restart_cost_seconds=failures.restart_cost_seconds,
        young_interval_seconds=interval.young,
        daly_interval_seconds=interval.daly,
        interval_seconds=interval.seconds,
        interval_source=interval.source,
        goodput=interval.goodput,
        optimum_goodput=interval.optimum_goodput,
        overhead_per_gpu_hour=prices.overhead,
        all_in_price_per_gpu_hour=prices.all_in,
        effective_price_per_useful_gpu_hour=prices.effective,
        total_cost_usd=prices.total,
        useful_gpu_hours=request.gpu_count * term_h * interval.goodput,
        lost_gpu_hours_per_incident=losses.per_incident,
        incidents_per_month=losses.incidents_per_month,
        lost_gpu_hours_per_month=losses.per_incident * losses.incidents_per_month,
        run_length_hours=losses.run_hours,
        expected_incidents_in_run=losses.run_hours / failures.cluster_mtbf_hours,
        run_wall_hours=losses.run_wall_hours,
        run_fits_term=losses.run_wall_hours is not None and losses.run_wall_hours <= term_h,
        node_mtbf_provenance=mtbf.provenance,
        node_mtbf_formula=mtbf.formula,
        detection_from=parts.detection_from,
        support_wait_from=parts.support_wait_from,
        repair_from=parts.repair_from,
        revalidation_from=parts.revalidation_from,
        offer=describe(
            kind=bid.isolation_class, profile=bid.mig_profile, replicas=bid.time_slice_replicas
        ),
        price_per_slice_hour=float(bid.price_per_gpu_hour),
        device_fraction=float(bid.device_fraction),
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
