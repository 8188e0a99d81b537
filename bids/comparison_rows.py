"""The rows of the comparison matrix: what each shows, its unit, which way is better, and which
cost-model steps explain it (by their `CostBreakdown.explain()` label)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bids.models import BidRevision

if TYPE_CHECKING:
    from bids.comparison import Cell

Getter = Callable[[BidRevision, dict[str, Any]], Any]

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
INTERVAL = "Checkpoint interval t (s)"
GOODPUT = "Goodput"
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

    def cell(
        self, revision: BidRevision, cost: dict[str, Any], steps: dict[str, dict[str, str]]
    ) -> Cell:
        """`steps` is the bid's explained cost-model steps, by label (see `explain_steps`)."""
        from bids.comparison import Cell

        raw = self.get(revision, cost)
        note = ""
        if self.key == "node_mtbf":
            note = "declared" if cost.get("node_mtbf_source") == "declared" else "default"
        explain = [steps[label] for label in self.explain if label in steps]
        if self.digits is None:
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


def _spares(rev: BidRevision, cost: dict[str, Any]) -> str:
    if not rev.spares_count:
        return "none"
    return f"{rev.spares_count} · {rev.get_spares_location_display()}"


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


def _answer(key: str, missing: str = "not answered yet") -> Getter:
    def get(rev: BidRevision, cost: dict[str, Any]) -> str:
        value = (rev.questionnaire or {}).get(key)
        if value is None:
            return missing
        if isinstance(value, bool):
            return _yes(value)
        if isinstance(value, dict):
            return ", ".join(f"{k} {v:g} min" for k, v in sorted(value.items()))
        return str(value).replace("_", " ")

    return get


PRICE_ROWS = [
    RowSpec("price", "List price", "$/GPU-h", _c("price_per_gpu_hour"), 3, "low"),
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
        (CHECKPOINT, CLUSTER_MTBF, YOUNG, INTERVAL),
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
        "Gb/s",
        lambda r, c: f"{r.nics_per_node} × {r.nic_rate_gbps}",
    ),
    RowSpec(
        "bandwidth",
        "Backend bandwidth per GPU",
        "Gb/s",
        lambda r, c: r.nics_per_node * r.nic_rate_gbps / (r.gpus_per_node or 1),
        0,
        "high",
    ),
    RowSpec("rail", "Rail-optimised", "", lambda r, c: _yes(r.rail_optimised)),
    RowSpec("oversubscription", "Oversubscription", "x:1", _r("oversubscription_ratio"), 2, "low"),
    RowSpec("leaf", "Leaf switches", "", _r("leaf_switches"), 0, "low"),
    RowSpec("nvlink", "NVLink domain", "GPUs", _r("nvlink_domain_size"), 0, "high"),
    RowSpec("isolation", "Isolation", "", _display("isolation_class")),
    RowSpec("scheduler", "Scheduler", "", _scheduler),
]

SLA_ROWS = [
    RowSpec("uptime", "Uptime SLA", "%", _r("uptime_pct"), 2, "high"),
    RowSpec("replacement", "Node replacement", "h", _r("node_replacement_hours"), 1, "low"),
    RowSpec("spares", "Spare nodes", "", _spares),
    RowSpec("coverage", "Support coverage", "", _display("coverage")),
    RowSpec("credits", "SLA credits", "", _r("sla_credits")),
    RowSpec("readiness", "Site readiness", "", _display("site_readiness")),
    RowSpec("response", "Response clocks", "", _answer("response_minutes")),
]

ACCEPTANCE_ROWS = [
    RowSpec("acknowledgement", "Acceptance test and handoff terms", "", _answer("acknowledgement")),
    RowSpec("exceptions", "Exceptions taken", "", _answer("acknowledgement_exceptions", "—")),
    RowSpec("evidence", "Shares host and fabric diagnostics", "", _answer("evidence_shared")),
]

ROW_GROUPS: list[tuple[str, list[RowSpec]]] = [
    ("Price and cost model", PRICE_ROWS),
    ("Hardware and fabric", HARDWARE_ROWS),
    ("SLA and incident response", SLA_ROWS),
    ("Acceptance terms", ACCEPTANCE_ROWS),
]
