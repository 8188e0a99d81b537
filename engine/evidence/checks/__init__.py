"""Acceptance checks: fixture spec + parsed evidence -> check results -> gate verdict.

Pure Python (no Django). Entry points: `run_checks`, `gate`, `evidence_item_from_text`.
"""

from engine.evidence.checks.model import (
    CheckResult,
    EvidenceItem,
    GateVerdict,
    Status,
    evidence_item_from_text,
    gate,
    summary_detail,
)
from engine.evidence.checks.runner import run_checks
from engine.evidence.checks.spec import Spec, load_spec, within_allocation

__all__ = [
    "CheckResult",
    "EvidenceItem",
    "GateVerdict",
    "Spec",
    "Status",
    "evidence_item_from_text",
    "gate",
    "load_spec",
    "run_checks",
    "summary_detail",
    "within_allocation",
]
