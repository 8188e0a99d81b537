"""Hard requirements and the five scored criteria (each 0-100 with a one-line rationale).

Each criterion is a sum of named parts. The rationale lists the parts that cost points, so the
buyer sees which inputs moved the score; docs/scoring.md gives every part's points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol

from engine.formatting import duration, link_rate, number

from .cost_model import CostBreakdown
from .inputs import BidOffer, RequestProfile
from .offer_kinds import refusal
from .reliability import INTERVAL_BUYER


@dataclass(frozen=True)
class Disqualification:
    """One failed hard requirement; `code` is stable, `message` is for people."""

    code: str
    message: str


@dataclass(frozen=True)
class CriterionScore:
    name: str
    score: float
    rationale: str


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _fmt(value: float) -> str:
    return f"{value:,.1f}".rstrip("0").rstrip(".")


class _Requirement(Protocol):
    def __call__(self, *, request: RequestProfile, bid: BidOffer) -> str | None: ...


def _gpu_model(*, request: RequestProfile, bid: BidOffer) -> str | None:
    if _norm(bid.gpu_model) == _norm(request.gpu_model):
        return None
    return f"offers {bid.gpu_model}, the request needs {request.gpu_model}"


def _gpu_count(*, request: RequestProfile, bid: BidOffer) -> str | None:
    if bid.gpu_total >= request.gpu_count:
        return None
    return (
        f"offers {bid.nodes} x {bid.gpus_per_node} = {bid.gpu_total} GPUs, "
        f"the request needs {request.gpu_count}"
    )


def _region(*, request: RequestProfile, bid: BidOffer) -> str | None:
    regions = {_norm(r) for r in request.acceptable_regions}
    if not regions or _norm(bid.region) in regions:
        return None
    return (
        f"region {bid.region} is not among the acceptable regions "
        f"({', '.join(request.acceptable_regions)})"
    )


def _available_start(*, request: RequestProfile, bid: BidOffer) -> str | None:
    if bid.available_start <= request.reservation_start:
        return None
    return (
        f"available from {bid.available_start.isoformat()}, after the reservation "
        f"start {request.reservation_start.isoformat()}"
    )


def _term_covered(*, request: RequestProfile, bid: BidOffer) -> str | None:
    if bid.available_end is None or bid.available_end >= request.reservation_end:
        return None
    return (
        f"available until {bid.available_end.isoformat()}, before the reservation "
        f"end {request.reservation_end.isoformat()}"
    )


def _isolation(*, request: RequestProfile, bid: BidOffer) -> str | None:
    return refusal(
        accepted=request.accepted_offer_kinds,
        min_profile=request.min_mig_profile,
        kind=bid.isolation_class,
        profile=bid.mig_profile,
    )


def _scheduler(*, request: RequestProfile, bid: BidOffer) -> str | None:
    if bid.scheduler == request.scheduler:
        return None
    return f"scheduler {bid.scheduler}, the request needs {request.scheduler}"


# (code, check): a check returns why the bid misses the requirement, or None when it meets it.
REQUIREMENTS: tuple[tuple[str, _Requirement], ...] = (
    ("gpu_model", _gpu_model),
    ("gpu_count", _gpu_count),
    ("region", _region),
    ("available_start", _available_start),
    ("term_not_covered", _term_covered),
    ("isolation_class", _isolation),
    ("scheduler", _scheduler),
)


def hard_requirement_failures(
    *, request: RequestProfile, bid: BidOffer
) -> tuple[Disqualification, ...]:
    """Every hard requirement the bid misses; empty when it qualifies."""
    out = [
        Disqualification(code, message)
        for code, check in REQUIREMENTS
        if (message := check(request=request, bid=bid)) is not None
    ]
    out.extend(Disqualification("deal_breaker", reason) for reason in bid.deal_breaker_failures)
    out.extend(
        Disqualification("missing_answer", f"required answer missing: {question}")
        for question in bid.missing_required_answers
    )
    return tuple(out)


@dataclass
class _Tally:
    """Accumulates points per part and the notes that explain lost points."""

    earned: float = 0.0
    available: float = 0.0
    lost: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)

    def part(self, points: float, share: float, *, good: str, bad: str) -> None:
        share = min(1.0, max(0.0, share))
        self.available += points
        self.earned += points * share
        if share < 1.0:
            self.lost.append(f"{bad} (-{_fmt(points * (1.0 - share))})")
        else:
            self.kept.append(good)

    def result(self, name: str) -> CriterionScore:
        score = 100.0 * self.earned / self.available if self.available else 0.0
        rationale = "; ".join(self.lost) if self.lost else "full marks: " + ", ".join(self.kept)
        return CriterionScore(name, round(score, 2), rationale)


def score_effective_cost(*, cost: CostBreakdown, best_effective: float | None) -> CriterionScore:
    """100 x (best effective price / this bid's); a bid with no useful work scores 0."""
    eff = cost.effective_price_per_useful_gpu_hour
    at = (
        f" at the buyer's {cost.interval_seconds / 60:,.0f} min interval"
        if cost.interval_source == INTERVAL_BUYER
        else ""
    )
    basis = (
        f"list ${cost.price_per_gpu_hour:.2f} + fees/egress ${cost.overhead_per_gpu_hour:.3f}, "
        f"goodput {cost.goodput:.1%}{at} (node MTBF {cost.node_mtbf_hours:,.0f} h, "
        f"{cost.node_mtbf_provenance}, "
        f"restart cost {cost.restart_cost_seconds / 3600:.1f} h)"
    )
    if eff is None:
        return CriterionScore("effective_cost", 0.0, f"no useful work expected: {basis}")
    if best_effective is None or best_effective <= 0:
        return CriterionScore(
            "effective_cost", 0.0, f"${eff:.3f} per useful GPU-hour, no reference bid: {basis}"
        )
    score = min(100.0, 100.0 * best_effective / eff)
    return CriterionScore(
        "effective_cost",
        round(score, 2),
        f"${eff:.3f} per useful GPU-hour vs best ${best_effective:.3f}: {basis}",
    )


def score_fabric_placement(*, request: RequestProfile, bid: BidOffer) -> CriterionScore:
    t = _Tally()
    need, have = request.per_gpu_bandwidth_gbps, bid.per_gpu_bandwidth_gbps
    t.part(
        30,
        have / need if need else 1.0,
        good=f"{link_rate(have)} per GPU",
        bad=f"{link_rate(have)} per GPU vs {number(need)} needed",
    )
    t.part(
        10,
        1.0 if request.fabric in ("other", bid.fabric) else 0.0,
        good=f"{bid.fabric} fabric",
        bad=f"{bid.fabric} fabric, {request.fabric} asked",
    )
    t.part(10, 1.0 if bid.rail_optimised else 0.0, good="rail-optimised", bad="not rail-optimised")
    t.part(
        15,
        1.0 / bid.oversubscription_ratio,
        good="non-blocking",
        bad=f"oversubscribed {_fmt(bid.oversubscription_ratio)}:1",
    )
    cap = request.max_leaf_switches
    if cap is None:
        t.part(10, 1.0, good="no leaf-switch limit asked", bad="")
    elif bid.leaf_switches is None:
        t.part(10, 0.5, good="", bad=f"leaf switches not stated (max {cap})")
    else:
        t.part(
            10,
            cap / bid.leaf_switches,
            good=f"{bid.leaf_switches} leaf switch(es) within {cap}",
            bad=f"{bid.leaf_switches} leaf switches vs max {cap}",
        )
    t.part(
        15,
        bid.nvlink_domain_size / request.nvlink_domain_size,
        good=f"NVLink domain {bid.nvlink_domain_size}",
        bad=f"NVLink domain {bid.nvlink_domain_size} vs {request.nvlink_domain_size} needed",
    )
    t.part(
        5,
        1.0 if bid.topology_aware else 0.0,
        good="topology-aware",
        bad="no topology-aware scheduling",
    )
    t.part(5, 1.0 if bid.gang_scheduling else 0.0, good="gang scheduling", bad="no gang scheduling")
    return t.result("fabric_placement")


_SPARES_SHARE = {"same_fabric_domain": 1.0, "same_site": 0.6, "remote": 0.25, "none": 0.0}
_COVERAGE_SHARE = {"24x7": 1.0, "extended": 0.5, "business_hours": 0.0}


def _replacement_share(hours: float) -> float:
    """4 h or less is full marks, 72 h or more is none; each doubling costs the same."""
    if hours <= 4:
        return 1.0
    return max(0.0, 1.0 - math.log(hours / 4) / math.log(72 / 4))


_CLOCK_WORDS = {"response": "first response", "restore": "restore"}


def _clock_pairs(
    *, request: RequestProfile, bid: BidOffer
) -> list[tuple[str, str, float, float, str]]:
    """(clock, severity, target, offered, questionnaire row) wherever both sides give a clock."""
    out = []
    rows = bid.clock_rows or {}
    for clock, targets, offered in (
        ("response", request.target_response_minutes, bid.response_minutes),
        ("restore", request.target_restore_minutes, bid.restore_minutes),
    ):
        for sev in sorted(set(targets or {}) & set(offered or {})):
            assert targets is not None and offered is not None
            out.append((clock, sev, targets[sev], offered[sev], rows.get(f"{sev}.{clock}", "")))
    return out


def score_incident_sla(*, request: RequestProfile, bid: BidOffer) -> CriterionScore:
    t = _Tally()
    t.part(
        15,
        (bid.uptime_pct - 99.0) / 0.9,
        good=f"uptime {bid.uptime_pct}%",
        bad=f"uptime {bid.uptime_pct}% (full marks from 99.9%)",
    )
    t.part(
        20,
        _replacement_share(bid.node_replacement_hours),
        good=f"node replacement {_fmt(bid.node_replacement_hours)} h",
        bad=f"node replacement {_fmt(bid.node_replacement_hours)} h",
    )
    spares_share = _SPARES_SHARE[bid.spares_location] if bid.spares_count > 0 else 0.0
    t.part(
        20,
        spares_share,
        good=f"{bid.spares_count} spare(s) in the job's fabric domain",
        bad="no spares"
        if spares_share == 0
        else f"{bid.spares_count} spare(s) {bid.spares_location.replace('_', ' ')}",
    )
    t.part(
        15,
        _COVERAGE_SHARE[bid.coverage],
        good="24x7 coverage",
        bad=f"{bid.coverage.replace('_', ' ')} coverage",
    )
    t.part(
        10,
        1.0 if bid.health_checks_auto_drain else 0.0,
        good="health checks with auto-drain",
        bad="no automatic health checks/drain",
    )
    clocks = _clock_pairs(request=request, bid=bid)
    if clocks:
        slow = [
            f"{_CLOCK_WORDS[clock]} {sev} {duration(offered)} vs {duration(target)}"
            + (f" ({row})" if row else "")
            for clock, sev, target, offered, row in clocks
            if offered > target
        ]
        t.part(
            20,
            sum(min(1.0, target / offered) for _, _, target, offered, _ in clocks) / len(clocks),
            good="response and restore clocks meet targets",
            bad=", ".join(slow),
        )
    # Without both clocks nothing is compared: the criterion is scored out of the other 80 points.
    return t.result("incident_sla")


def score_acceptance_terms(*, bid: BidOffer) -> CriterionScore:
    t = _Tally()
    mismatch = bid.execution_path_mismatch
    # An acceptance run that misses the required transport costs as much as an exception even
    # when the provider accepted the fixture as it stands: the run would not test what was
    # agreed. The words keep them apart: the provider took no exception to the terms.
    penalties = bid.acknowledgement_exceptions + (1 if mismatch else 0)
    status = bid.acknowledgement
    if status == "accepted" and not mismatch:
        share = 1.0
    elif status in ("accepted", "accepted_with_exceptions"):
        share = max(20.0, 60.0 - 10.0 * max(1, penalties)) / 60.0
    else:
        share = 0.0
    if status == "accepted":
        bad = f"accepted, but the acceptance run's path does not match: {mismatch}"
    elif status == "accepted_with_exceptions":
        bad = f"accepted with {bid.acknowledgement_exceptions} exception(s)"
        if mismatch:
            bad += f"; the acceptance run's path does not match either: {mismatch}"
    else:
        bad = "acceptance terms not acknowledged" + (f"; {mismatch}" if mismatch else "")
    t.part(60, share, good="acceptance test and handoff terms accepted", bad=bad)
    t.part(
        40,
        1.0 if bid.evidence_shared else 0.0,
        good="shares host and fabric diagnostics",
        bad="does not share host/fabric diagnostics",
    )
    return t.result("acceptance_terms")


_READINESS_SHARE = {"live": 1.0, "racked": 0.6, "under_construction": 0.0}


def score_delivery_risk(*, request: RequestProfile, bid: BidOffer) -> CriterionScore:
    t = _Tally()
    t.part(
        50,
        _READINESS_SHARE[bid.site_readiness],
        good="site live",
        bad=f"site {bid.site_readiness.replace('_', ' ')}",
    )
    slack = (request.reservation_start - bid.available_start).days
    t.part(
        25,
        0.0 if slack < 0 else 0.4 + 0.6 * min(slack, 14) / 14,
        good=f"available {slack} days before the start",
        bad=f"start slack {slack} days (full marks from 14)",
    )
    t.part(
        25,
        1.0 if bid.declared_node_mtbf_hours is not None else 0.0,
        good="node MTBF declared",
        bad="node MTBF not declared",
    )
    return t.result("delivery_risk")


def score_criteria(
    *, request: RequestProfile, bid: BidOffer, cost: CostBreakdown, best_effective: float | None
) -> tuple[CriterionScore, ...]:
    """The five criteria in the order of `inputs.CRITERIA`."""
    return (
        score_effective_cost(cost=cost, best_effective=best_effective),
        score_fabric_placement(request=request, bid=bid),
        score_incident_sla(request=request, bid=bid),
        score_acceptance_terms(bid=bid),
        score_delivery_risk(request=request, bid=bid),
    )


__all__ = [
    "CriterionScore",
    "Disqualification",
    "hard_requirement_failures",
    "score_acceptance_terms",
    "score_criteria",
    "score_delivery_risk",
    "score_effective_cost",
    "score_fabric_placement",
    "score_incident_sla",
]
