"""The default incident questionnaire, as data. Bump DEFAULT_VERSION whenever it changes.

The library copy is created lazily from this module (see services.question_sets); a request
gets its own editable copy, so changing this file never alters a set bids already answered.
"""

from __future__ import annotations

from questionnaire.answer_types import (
    DURATION,
    ENUM,
    INTEGER,
    MULTI,
    RULE_YES,
    TEXT,
    YESNO,
    QuestionSpec,
)

DEFAULT_NAME = "Clusterbid incident questionnaire"
DEFAULT_VERSION = 2  # 2: five questions bound to the bid fields that hold them
MATRIX_SECTION = "Responsibility matrix"
SEVERITIES = ("S1", "S2", "S3")
SEVERITY_LABELS = {
    "S1": "S1 — job down across the cluster",
    "S2": "S2 — job runs with degraded throughput",
    "S3": "S3 — one node out, job continues on fewer",
}
CLOCKS = {"response": "first response", "restore": "restore"}

# (key, label, what the step covers)
STEPS: tuple[tuple[str, str, str], ...] = (
    ("detect", "Detect", "Alert on the hardware, fabric and scheduler signals you watch."),
    ("isolate", "Isolate the node", "Cordon or drain the failing node so jobs stop landing on it."),
    ("diagnose", "Diagnose", "Find the cause from host, GPU and fabric telemetry."),
    ("repair", "Repair or replace", "Fix the node or swap in a spare."),
    (
        "revalidate",
        "Revalidate the fabric",
        "GPU diagnostics plus a multi-node NCCL run compared with the hand-over baseline.",
    ),
    ("notify", "Notify ready", "Tell the other side the capacity is back, with the evidence."),
    ("restart", "Restart the job", "Relaunch from the last good checkpoint."),
    ("checkpoint", "Checkpoint policy", "Interval and where checkpoints live."),
)
OWNER_CHOICES = (("provider", "Provider"), ("buyer", "Buyer"), ("shared", "Shared"))

# Where the buyer has not set its own targets yet (minutes).
DEFAULT_TARGET_RESPONSE = {"S1": 30, "S2": 120, "S3": 480}
DEFAULT_TARGET_RESTORE = {"S1": 240, "S2": 720, "S3": 2880}

TRANSPORT_CHOICES = (
    ("IB", "IB verbs (InfiniBand or RoCE)"),
    ("Socket", "TCP sockets"),
    ("NVLink", "NVLink only (single node)"),
    ("other", "Other (say which below)"),
)
TICKET_CHOICES = (
    ("ids", "Cluster and node ids"),
    ("utc_window", "UTC window of last good and first bad step"),
    ("rank_map", "Rank → node map"),
    ("nccl_output", "NCCL output from the failing ranks"),
    ("step_times", "Step-time series"),
    ("scheduler_events", "Scheduler events"),
    ("change_log", "Change log (last 24 h)"),
)
# The defaults' required clocks: every first response on detection, every restore on repair.
_REQUIRED_CLOCKS = {("detect", "response"), ("repair", "restore")}


def _matrix() -> list[QuestionSpec]:
    specs: list[QuestionSpec] = []
    for step, label, help_text in STEPS:
        specs.append(
            QuestionSpec(
                key=f"{step}.owner",
                section=MATRIX_SECTION,
                text=f"{label}: owner",
                answer_type=ENUM,
                choices=OWNER_CHOICES,
                required=True,
                help_text=help_text,
                step=step,
                column="owner",
            )
        )
        specs.append(
            QuestionSpec(
                key=f"{step}.evidence",
                section=MATRIX_SECTION,
                text=f"{label}: evidence handed over",
                answer_type=TEXT,
                step=step,
                column="evidence",
            )
        )
        for severity in SEVERITIES:
            for clock, clock_label in CLOCKS.items():
                specs.append(
                    QuestionSpec(
                        key=f"{step}.{severity}.{clock}",
                        section=MATRIX_SECTION,
                        text=f"{label}: {severity} {clock_label}",
                        answer_type=DURATION,
                        required=(step, clock) in _REQUIRED_CLOCKS,
                        step=step,
                        column=f"{severity}.{clock}",
                    )
                )
    return specs


def _q(key: str, section: str, text: str, answer_type: str, **kw: object) -> QuestionSpec:
    return QuestionSpec(key=key, section=section, text=text, answer_type=answer_type, **kw)  # type: ignore[arg-type]


COVER, MAINT, SPARES, HEALTH = (
    "Coverage and escalation",
    "Planned maintenance",
    "Spares and partial capacity",
    "Health checks and diagnostics",
)
PATH, BYOS = "Acceptance-run execution path", "Own hardware (BYOS)"


def _operations() -> list[QuestionSpec]:
    return [
        _q("coverage.hours", COVER, "Support coverage hours", ENUM, required=True,
           bound_to="coverage",
           choices=(("24x7", "24 × 7"), ("extended", "Extended hours"),
                    ("business_hours", "Business hours"))),
        _q("coverage.time_zone", COVER, "Time zone of the support team", TEXT, required=True,
           help_text="Relative to the data centre running the cluster, e.g. 'CET, same as site'."),
        _q("ticket.contents", COVER, "What you need in an incident ticket", MULTI, required=True,
           choices=TICKET_CHOICES),
        _q("escalation.path", COVER, "Escalation path", TEXT, required=True,
           help_text="Who joins from engineering, and when an incident moves up a severity."),
        _q("maintenance.notice", MAINT, "Notice before planned maintenance", DURATION,
           required=True),
        _q("maintenance.drain_waits", MAINT, "Does a planned drain wait for the next checkpoint?",
           YESNO, required=True),
        _q("spares.count", SPARES, "Spare nodes for this cluster", INTEGER, required=True,
           bound_to="spares_count"),
        _q("spares.reservation", SPARES, "Are the spares reserved or shared?", ENUM,
           choices=(("reserved", "Reserved for this cluster"), ("shared", "Shared pool"),
                    ("none", "No spares"))),
        _q("spares.domain", SPARES, "Where do the spares sit?", ENUM, bound_to="spares_location",
           choices=(("same_domain", "Same NVLink/fabric domain"),
                    ("same_site", "Same site, other fabric domain"),
                    ("other_site", "Another site"), ("none", "No spares"))),
        _q("replacement.time", SPARES, "Node replacement time", DURATION, required=True,
           bound_to="node_replacement_hours"),
        _q("partial.running", SPARES, "Can the job run on fewer nodes while one is repaired?",
           YESNO),
        _q("partial.billing", SPARES, "Billing while running short of capacity", ENUM,
           required=True,
           choices=(("full", "Full price"), ("prorated", "Pro-rated to working nodes"),
                    ("credit", "Service credit per hour short"),
                    ("paused", "Not billed until restored"))),
        _q("health.between_jobs", HEALTH, "Health checks between jobs", YESNO, required=True),
        _q("health.auto_drain", HEALTH, "Unhealthy nodes drained automatically", YESNO,
           required=True, bound_to="health_checks_auto_drain"),
        _q("health.buyer_checks", HEALTH, "May the buyer add its own health checks?", YESNO),
        _q("diagnostics.shared", HEALTH,
           "Will you share host and network diagnostics the tenant cannot see?", YESNO,
           required=True,
           help_text="DCGM results, ibstat and switch counters, BMC logs during an incident."),
        _q("diagnostics.baseline_rerun", HEALTH,
           "Before declaring a node ready, do you rerun NCCL against the hand-over baseline?",
           YESNO, required=True, rule=RULE_YES),
        _q("path.transport", PATH, "NCCL transport your own acceptance run covers", ENUM,
           required=True, choices=TRANSPORT_CHOICES),
        _q("path.backend", PATH, "Versions and backend of that run", TEXT,
           help_text="NCCL and CUDA versions, network plugin, proxy or GPU-initiated backend."),
        _q("byos.offered", BYOS, "Do you run clusters on the buyer's own hardware?", YESNO),
        _q("byos.physical_repair", BYOS, "BYOS: who does physical repair?", ENUM,
           choices=OWNER_CHOICES),
        _q("byos.spares", BYOS, "BYOS: who holds the spares?", ENUM, choices=OWNER_CHOICES),
        _q("byos.dc_access", BYOS, "BYOS: data-centre access arrangements", TEXT),
    ]  # fmt: skip


def default_questions() -> list[QuestionSpec]:
    specs = [*_matrix(), *_operations()]
    return [
        QuestionSpec(**{**spec.to_dict(), "choices": spec.choices, "order": (i + 1) * 10})
        for i, spec in enumerate(specs)
    ]
