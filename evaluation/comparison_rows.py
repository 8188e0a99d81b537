"""The rows of the comparison matrix: what each shows, its unit, which way is better, and which
cost-model steps explain it (by their `CostBreakdown.explain()` label)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.utils.formats import date_format

from bids.models import BidRevision
from engine.formatting import LINK_RATE_UNIT, duration
from evaluation.matrix import Cell
from questionnaire.snapshot import ScoringAnswers

Getter = Callable[[BidRevision, dict[str, Any]], Any]


@dataclass(frozen=True)
class Facts:
    """What scoring read besides the revision's fields: its frozen answers, the acknowledgement."""

    answers: ScoringAnswers
    acknowledgement: str = "not_acknowledged"
    exceptions: int = 0


FactGetter = Callable[[Facts], Any]

# cost-model explain labels, in the order the model computes them
NODE_MTBF = "Node MTBF (h)"
CLUSTER_MTBF = "Cluster MTBF M (h)"
CHECKPOINT = "Checkpoint write C (s)"
DETECTION = "Detection (s)"
SUPPORT_WAIT = "Support wait (s)"
REPAIR = "Repair (s)"
REVALIDATION = "Revalidation (s)"
RESTART = "Restart and load (s)"
RESTART_COST = "Restart cost R (s)"
YOUNG = "Young interval (s)"
OPTIMUM = "Optimum interval (s)"
INTERVAL = "Checkpoint interval t (s)"
GOODPUT = "Goodput"
DEVICE_PRICE = "Price per whole-device-equivalent hour ($)"
OVERHEAD = "Fees and egress per GPU-hour ($)"
EFFECTIVE = "Effective price per useful GPU-hour ($)"
TOTAL = "Total cost of the term ($)"
LOST_INCIDENT = "Lost GPU-hours per incident"
INCIDENTS = "Incidents per month"
LOST_MONTH = "Lost GPU-hours per month"
WALL = "Wall-clock hours for the run"


def number(value: Any, digits: int) -> str:
    return f"{value:,.{digits}f}"


def explain_value(value: Any) -> str:
    if not isinstance(value, int | float):
        return "—" if value is None else str(value)
    magnitude = abs(value)
    digits = 0 if magnitude >= 100 else 2 if magnitude >= 10 else 4
    return number(value, digits)


def explain_steps(cost: dict[str, Any]) -> dict[str, dict[str, str]]:
    """The cost model's `explain` rows by label, their values formatted for people."""
    return {
        row["label"]: {
            "label": row["label"],
            "formula": row["formula"],
            "value": explain_value(row["value"]),
        }
        for row in cost.get("explain", [])
    }


def mtbf_note(cost: dict[str, Any]) -> str:
    """'declared', 'default' or 'realised, 3 reservations, 41,000 node-hours, 4 incidents'.

    Scores stored before the track record existed carry only the source."""
    source = cost.get("node_mtbf_source")
    return cost.get("node_mtbf_provenance") or ("declared" if source == "declared" else "default")


@dataclass(frozen=True)
class RowSpec:
    key: str
    label: str
    unit: str
    get: Getter
    digits: int | None = None  # None: a text row
    better: str | None = None  # "low" | "high" | None
    explain: Sequence[str] = ()
    scale: float = 1.0
    fact: FactGetter | None = None  # reads `Facts` instead of the revision and cost

    def cell(
        self,
        revision: BidRevision,
        cost: dict[str, Any],
        steps: dict[str, dict[str, str]],
        facts: Facts,
    ) -> Cell:
        """`steps` is the bid's explained cost-model steps, by label (see `explain_steps`)."""
        raw = self.fact(facts) if self.fact else self.get(revision, cost)
        note = ""
        if self.key == "node_mtbf":
            note = mtbf_note(cost)
        explain = [steps[label] for label in self.explain if label in steps]
        if self.digits is None:
            if isinstance(raw, date):
                # Shown as every other page prints a date; exported, and valued in the API, ISO.
                return Cell(date_format(raw, "j M Y"), raw.isoformat(), note=note, explain=explain)
            text = "—" if raw in (None, "") else str(raw)
            return Cell(text, text, note=note, explain=explain)
        if raw is None:
            return Cell("—", None, note=note, explain=explain)
        scaled = float(raw) * self.scale
        value: float | int = round(scaled, self.digits) if self.digits else round(scaled)
        return Cell(number(value, self.digits), value, note=note, explain=explain)


def _c(name: str) -> Getter:
    return lambda rev, cost: cost.get(name)


def _r(name: str) -> Getter:
    return lambda rev, cost: getattr(rev, name)


def _display(name: str) -> Getter:
    return lambda rev, cost: getattr(rev, f"get_{name}_display")()


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def _stated(name: str) -> Getter:
    """A yes/no the provider may leave unstated: None shows as "—", never as "no"."""
    return lambda rev, cost: None if getattr(rev, name) is None else _yes(getattr(rev, name))


def _choice(name: str) -> Getter:
    """A choice the provider may leave empty: "—" rather than an empty label."""
    return lambda rev, cost: getattr(rev, f"get_{name}_display")() if getattr(rev, name) else None


def _spares(rev: BidRevision, cost: dict[str, Any]) -> str:
    if not rev.spares_count:
        return "none"
    return f"{rev.spares_count} · {rev.get_spares_location_display()}"


def _kind(rev: BidRevision, part: str) -> str | None:
    kind = rev.offer_kind
    return getattr(kind, part) if kind is not None else rev.get_isolation_class_display()


def _scheduler(rev: BidRevision, cost: dict[str, Any]) -> str:
    features = [
        name
        for name, on in (
            ("topology-aware", rev.topology_aware),
            ("gang", rev.gang_scheduling),
            ("health checks + auto-drain", rev.health_checks_auto_drain),
        )
        if on
    ]
    return f"{rev.get_scheduler_display()}" + (f" ({', '.join(features)})" if features else "")


NOT_ANSWERED = "not answered"
_ACKNOWLEDGEMENT = {
    "accepted": "accepted",
    "accepted_with_exceptions": "accepted with exceptions",
    "not_acknowledged": "not acknowledged",
}


def _clocks(clock: str) -> FactGetter:
    """'S1 15 min (Detect) · S2 1 h (Detect)': the clocks scoring compared, with their rows."""

    def get(facts: Facts) -> str:
        a = facts.answers
        if not a.answered:
            return NOT_ANSWERED
        values = (a.response_minutes if clock == "response" else a.restore_minutes) or {}
        rows = {(a.clock_rows or {}).get(f"{sev}.{clock}", "") for sev in values}
        shared = rows.pop() if len(rows) == 1 else ""
        parts = [
            f"{sev} {duration(values[sev])}"
            + ("" if shared else f" ({(a.clock_rows or {}).get(f'{sev}.{clock}', '?')})")
            for sev in sorted(values)
        ]
        text = " · ".join(parts)
        return (f"{text} ({shared})" if shared else text) or NOT_ANSWERED

    return get


def _evidence(facts: Facts) -> str:
    return _yes(facts.answers.evidence_shared) if facts.answers.answered else NOT_ANSWERED


def _path(facts: Facts) -> str:
    if not facts.answers.answered:
        return NOT_ANSWERED
    return facts.answers.execution_path_mismatch or "no mismatch"


PRICE_ROWS = [
    RowSpec("offer_kind", "Offer kind", "", lambda rev, cost: _kind(rev, "description")),
    # Per slice-hour prices compare only within a kind; the next row puts every kind on one scale.
    RowSpec("price_slice", "List price per slice-hour", "$", _r("price_per_gpu_hour"), 3),
    RowSpec(
        "price",
        "List price per whole-device-equivalent hour",
        "$/GPU-h",
        _c("price_per_gpu_hour"),
        3,
        "low",
        (DEVICE_PRICE,),
    ),
    RowSpec("fees", "Fees over the term", "$", _c("fees_usd"), 0, "low"),
    RowSpec("egress", "Egress over the term", "$", _c("egress_usd"), 0, "low"),
    RowSpec(
        "overhead",
        "Fees and egress per GPU-hour",
        "$",
        _c("overhead_per_gpu_hour"),
        4,
        "low",
        (OVERHEAD,),
    ),
    RowSpec("node_mtbf", "Node MTBF", "h", _c("node_mtbf_hours"), 0, "high", (NODE_MTBF,)),
    RowSpec("node_mtbf_source", "Node MTBF from", "", lambda rev, cost: mtbf_note(cost)),
    RowSpec(
        "cluster_mtbf",
        "Cluster MTBF",
        "h",
        _c("cluster_mtbf_hours"),
        0,
        "high",
        (NODE_MTBF, CLUSTER_MTBF),
    ),
    RowSpec(
        "restart_cost",
        "Restart cost per failure",
        "h",
        _c("restart_cost_seconds"),
        1,
        "low",
        (DETECTION, SUPPORT_WAIT, REPAIR, REVALIDATION, RESTART, RESTART_COST),
        1 / 3600,
    ),
    RowSpec(
        "interval",
        "Checkpoint interval",
        "min",
        _c("interval_seconds"),
        1,
        None,
        (CHECKPOINT, CLUSTER_MTBF, YOUNG, OPTIMUM, INTERVAL),
        1 / 60,
    ),
    RowSpec(
        "goodput",
        "Goodput",
        "%",
        _c("goodput"),
        2,
        "high",
        (INTERVAL, RESTART_COST, CLUSTER_MTBF, GOODPUT),
        100,
    ),
    RowSpec(
        "optimum_goodput",
        "Goodput at the optimum interval",
        "%",
        _c("optimum_goodput"),
        2,
        None,
        (OPTIMUM,),
        100,
    ),
    RowSpec(
        "effective",
        "Effective price per useful GPU-hour",
        "$",
        _c("effective_price_per_useful_gpu_hour"),
        3,
        "low",
        (OVERHEAD, GOODPUT, EFFECTIVE),
    ),
    RowSpec("total_cost", "Total cost of the term", "$", _c("total_cost_usd"), 0, "low", (TOTAL,)),
    RowSpec(
        "lost_incident",
        "Lost GPU-hours per incident",
        "GPU-h",
        _c("lost_gpu_hours_per_incident"),
        0,
        "low",
        (INTERVAL, RESTART_COST, LOST_INCIDENT),
    ),
    RowSpec(
        "lost_month",
        "Lost GPU-hours per month",
        "GPU-h",
        _c("lost_gpu_hours_per_month"),
        1,
        "low",
        (LOST_INCIDENT, INCIDENTS, LOST_MONTH),
    ),
    RowSpec(
        "run_wall",
        "Wall-clock time for the planned run",
        "h",
        _c("run_wall_hours"),
        0,
        "low",
        (GOODPUT, WALL),
    ),
    RowSpec("billing", "Billing terms", "", _r("billing_terms")),
]

HARDWARE_ROWS = [
    RowSpec("region", "Region", "", _display("region")),
    RowSpec("site", "Site", "", _r("site")),
    RowSpec("available", "Available from", "", lambda r, c: r.available_start),
    RowSpec("gpus", "GPUs", "", lambda r, c: f"{r.nodes} × {r.gpus_per_node} {r.gpu_model}"),
    RowSpec("fabric", "Backend fabric", "", _display("fabric")),
    RowSpec(
        "nics",
        "NICs per node × rate",
        LINK_RATE_UNIT,
        lambda r, c: f"{r.nics_per_node} × {r.nic_rate_gbps}",
    ),
    RowSpec(
        "bandwidth",
        "Backend bandwidth per GPU",
        LINK_RATE_UNIT,
        lambda r, c: r.nics_per_node * r.nic_rate_gbps / (r.gpus_per_node or 1),
        0,
        "high",
    ),
    RowSpec("rail", "Rail-optimised", "", lambda r, c: _yes(r.rail_optimised)),
    RowSpec("oversubscription", "Oversubscription", "x:1", _r("oversubscription_ratio"), 2, "low"),
    RowSpec("leaf", "Leaf switches", "", _r("leaf_switches"), 0, "low"),
    RowSpec("nvlink", "NVLink domain", "GPUs", _r("nvlink_domain_size"), 0, "high"),
    RowSpec("isolation", "Isolation", "", lambda rev, cost: _kind(rev, "isolation")),
    RowSpec("scheduler", "Scheduler", "", _scheduler),
]

SLA_ROWS = [
    RowSpec("uptime", "Uptime SLA", "%", _r("uptime_pct"), 2, "high"),
    RowSpec("replacement", "Node replacement", "h", _r("node_replacement_hours"), 1, "low"),
    RowSpec("spares", "Spare nodes", "", _spares),
    RowSpec("coverage", "Support coverage", "", _display("coverage")),
    RowSpec("credits", "SLA credits", "", _r("sla_credits")),
    RowSpec("readiness", "Site readiness", "", _display("site_readiness")),
    RowSpec("response", "First response (questionnaire)", "", _r("pk"), fact=_clocks("response")),
    RowSpec("restore", "Restore (questionnaire)", "", _r("pk"), fact=_clocks("restore")),
]

ENVELOPE_ROWS = [
    RowSpec("placement", "Placement class", "", _choice("placement_class")),
    RowSpec("start_p50", "Time to running, median", "min", _r("start_p50_minutes"), 0, "low"),
    RowSpec("start_p95", "Time to running, p95", "min", _r("start_p95_minutes"), 0, "low"),
    RowSpec("lent", "Idle reserved capacity lent to others", "", _stated("idle_capacity_lent")),
    RowSpec("preemptible", "Running jobs can be reclaimed", "", _stated("preemptible")),
    RowSpec("notice", "Reclaim notice", "min", _r("reclaim_notice_minutes"), 0, "high"),
    RowSpec(
        "reclaim_effect", "What a reclaim does to a running job", "", _choice("reclaim_effect")
    ),
    RowSpec("health_check", "Health-check cadence", "min", _r("health_check_minutes"), 0, "low"),
    RowSpec("node_fail", "What fails a node", "", _r("node_fail_criteria")),
]

INFERENCE_ROWS = [
    RowSpec("concurrency", "Stated concurrency", "requests", _r("inference_concurrency"), 0),
    RowSpec("ttft_p50", "Time to first token, median", "ms", _r("ttft_p50_ms"), 1, "low"),
    RowSpec("ttft_p95", "Time to first token, p95", "ms", _r("ttft_p95_ms"), 1, "low"),
    RowSpec("itl_p50", "Inter-token latency, median", "ms", _r("itl_p50_ms"), 1, "low"),
    RowSpec("itl_p95", "Inter-token latency, p95", "ms", _r("itl_p95_ms"), 1, "low"),
    RowSpec(
        "throughput", "Output throughput", "tokens/s", _r("throughput_tokens_per_s"), 0, "high"
    ),
    RowSpec(
        "cost_mtok", "Cost per million output tokens", "$", _r("cost_per_million_tokens"), 2, "low"
    ),
]

ACCEPTANCE_ROWS = [
    RowSpec(
        "acknowledgement",
        "Acceptance test and handoff terms",
        "",
        _r("pk"),
        fact=lambda f: _ACKNOWLEDGEMENT.get(f.acknowledgement, f.acknowledgement),
    ),
    RowSpec(
        "exceptions",
        "Exceptions taken",
        "",
        _r("pk"),
        0,
        "low",
        fact=lambda f: f.exceptions if f.acknowledgement == "accepted_with_exceptions" else None,
    ),
    RowSpec("execution_path", "Acceptance-run execution path", "", _r("pk"), fact=_path),
    RowSpec("evidence", "Shares host and fabric diagnostics", "", _r("pk"), fact=_evidence),
]

ROW_GROUPS: list[tuple[str, list[RowSpec]]] = [
    ("Price and cost model", PRICE_ROWS),
    ("Hardware and fabric", HARDWARE_ROWS),
    ("SLA and incident response", SLA_ROWS),
    ("Service envelope", ENVELOPE_ROWS),
    ("Inference offer", INFERENCE_ROWS),
    ("Acceptance terms", ACCEPTANCE_ROWS),
]
