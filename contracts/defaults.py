"""Handoff-terms templates: the starting values a buyer picks before editing (pure Python)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

SEVERITIES: tuple[tuple[str, str], ...] = (
    ("s1", "S1 — job down cluster-wide"),
    ("s2", "S2 — degraded throughput"),
    ("s3", "S3 — one node out, the job continues"),
)

STANDARD: dict[str, Any] = {
    "buyer_owner_name": "",
    "buyer_owner_contact": "",
    "provider_owner_name": "",
    "provider_owner_contact": "",
    "buyer_evidence": (
        "Launch command and job id, worker→GPU map, per-rank logs with NCCL_DEBUG=INFO, "
        "per-rank step times around the incident, id of the last good checkpoint."
    ),
    "provider_evidence": (
        "nvidia-smi -q and topo -m, dcgmi diag -r 3, ibstat and switch port counters, "
        "BMC/SEL logs, the node's drain, repair and replacement history."
    ),
    "records_location": (
        "The shared incident ticket; files under incidents/<ticket-id>/ in the shared bucket."
    ),
    "s1_response_minutes": 15,
    "s1_restore_minutes": 240,
    "s1_escalation": (
        "No first response in 15 min: page the provider's duty manager. "
        "Not restored in 4 h: account executive, and the SLA credit clock starts."
    ),
    "s2_response_minutes": 60,
    "s2_restore_minutes": 480,
    "s2_escalation": "Not restored in 8 h: escalate as S1.",
    "s3_response_minutes": 240,
    "s3_restore_minutes": 1440,
    "s3_escalation": "Node not back or replaced in 24 h: escalate as S2.",
    "degraded_step_time_pct": Decimal("10.0"),
    "degraded_window_minutes": 15,
    "recovery_diagnostics_all_gpus": True,
    "recovery_nccl_margin_pct": Decimal("5.0"),
    "recovery_smoke_margin_pct": Decimal("5.0"),
    "recovery_loss_continuity": True,
    "recovery_no_recurrence_hours": 24,
    "workaround_approval": (
        "A workaround that changes the node set, topology or NCCL settings of the job needs "
        "written approval from the buyer's incident owner before it is applied."
    ),
    "excl_customer_caused": (
        "Failures caused by the buyer's code, configuration or misuse; the clocks pause while "
        "the cause is being established and resume if it is the provider's."
    ),
    "excl_buyer_software": (
        "Software the buyer installs on the nodes is the buyer's to support; the driver, "
        "firmware, fabric manager and scheduler stay the provider's."
    ),
    "maintenance_notice_hours": 72,
    "coverage_hours": "24 × 7",
    "coverage_timezone": "UTC",
    "partial_capacity_billing": (
        "A GPU out of service for more than 1 h is not billed for the time it is out, "
        "pro rata per GPU-hour."
    ),
    "spares": (
        "Hot spares in the same fabric domain; a replacement node passes the acceptance "
        "fixture before it is handed back."
    ),
    "own_hardware": "Hardware the buyer brings (its own storage or network gear) is excluded.",
    # Availability and credits. Tiers in the style of public cloud compute SLAs
    # (monthly uptime below 99.9 / 99 / 95 % earns 10 / 25 / 100 % of the month's fees); the
    # reasoning and sources are in docs/availability.md.
    "sla_credit_tiers": [
        {"below_pct": "99.9", "credit_pct": "10"},
        {"below_pct": "99.0", "credit_pct": "25"},
        {"below_pct": "95.0", "credit_pct": "100"},
    ],
    "sla_credit_cap_pct": None,
    # S1 stops the job and S3 takes nodes out; S2 (degraded) runs on and is not downtime.
    "downtime_severities": ["S1", "S3"],
    # Scope: an S1 is the job down across the cluster, so the whole allocation is down whichever
    # nodes it names; an S3 takes out the nodes it names.
    "whole_allocation_severities": ["S1"],
    # An S2 (degraded, the job runs on) counts this % of its duration as downtime on its nodes;
    # 0: not downtime, only lost time. A percentage the parties agree, not a market default.
    "degraded_downtime_pct": Decimal("0.0"),
    "clock_breach_credit_pct": Decimal("0.0"),
    "outage_not_billed": True,
}

BUSINESS_HOURS: dict[str, Any] = {
    **STANDARD,
    "s1_response_minutes": 30,
    "s1_restore_minutes": 480,
    "s1_escalation": "No first response in 30 min: phone the provider's support lead.",
    "s2_response_minutes": 120,
    "s2_restore_minutes": 1440,
    "s3_response_minutes": 480,
    "s3_restore_minutes": 2880,
    "s3_escalation": "Node not back or replaced in 48 h: escalate as S2.",
    "recovery_no_recurrence_hours": 12,
    "maintenance_notice_hours": 120,
    "coverage_hours": "Mon–Fri 08:00–18:00",
    "coverage_timezone": "Europe/Berlin",
}


@dataclass(frozen=True)
class TermsTemplate:
    key: str
    name: str
    description: str
    values: dict[str, Any]


_TEMPLATES = (
    TermsTemplate(
        key="training-24x7",
        name="Training cluster, 24 × 7",
        description=(
            "Tight clocks for a long pre-training run: 15 min first response and 4 h restore "
            "for S1, a shared +10 % over 15 min 'degraded' definition, 24 h without recurrence."
        ),
        values=STANDARD,
    ),
    TermsTemplate(
        key="business-hours",
        name="Business-hours support",
        description=(
            "For providers without round-the-clock staff: longer clocks, coverage on "
            "weekdays in Central European time, 5 days' maintenance notice."
        ),
        values=BUSINESS_HOURS,
    ),
)

DEFAULT_TERMS_TEMPLATE = _TEMPLATES[0].key


def terms_templates() -> list[TermsTemplate]:
    return list(_TEMPLATES)


def terms_template(key: str) -> TermsTemplate:
    for tpl in _TEMPLATES:
        if tpl.key == key:
            return tpl
    raise KeyError(f"unknown terms template {key!r}")
