"""Plain data the checks take and return, and the acceptance gate."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from engine.evidence.parsers.base import ParseError
from engine.evidence.parsers.registry import ParsedEvidence, detect_kind, parse_evidence

if TYPE_CHECKING:
    from engine.evidence.checks.findings import Finding

Status = Literal["pass", "fail", "warn", "missing", "inconclusive"]
BLOCKING: frozenset[str] = frozenset({"fail", "missing", "inconclusive"})

GROUP_BY_KIND = {
    "fixture-result": "fixture-result",
    "nccl-tests": "nccl-tests",
    "nvidia-smi-topo": "topology",
    "nvidia-smi-query": "gpu-query",
    "dcgmi-diag": "dcgmi",
    "ibstat": "ibstat",
    "step-times": "step-times",
    "perfquery": "ib-counters",
    "ibqueryerrors": "ib-counters",
    "nvbandwidth": "host-device",
    "perftest": "fabric-probe",
    "nvidia-smi-dmon": "gpu-monitor",
}


@dataclass(frozen=True)
class EvidenceItem:
    """One uploaded file: `node` None means it covers the whole allocation.

    A subset run is labelled with its nodes joined by '+', e.g. "node-a+node-b".
    """

    ref: str
    node: str | None
    kind: str
    parsed: ParsedEvidence | None = None
    error: str | None = None
    error_line: int | None = None
    # The stored file's SHA-256 and name, where known (the findings compare them).
    sha256: str | None = None
    name: str | None = None

    @property
    def nodes(self) -> tuple[str, ...]:
        return tuple(n for n in (self.node or "").split("+") if n)


@dataclass(frozen=True)
class CheckResult:
    name: str
    group: str
    status: Status
    measured: str
    expected: str
    evidence_ref: str | None
    line: int | None
    mandatory: bool
    message: str
    node: str | None = None
    finding: Finding | None = None  # set on a row that reports a finding on the evidence


@dataclass(frozen=True)
class GateVerdict:
    passed: bool
    failing: list[CheckResult] = field(default_factory=list)
    summary: str = ""


GATE_PASSED, GATE_FAILED = "gate passed: ", "gate failed: "


def summary_detail(summary: str) -> str:
    """A gate summary without its verdict, for a page that shows the verdict beside it."""
    for lead in (GATE_PASSED, GATE_FAILED):
        if summary.startswith(lead):
            rest = summary.removeprefix(lead)
            return rest[:1].upper() + rest[1:]
    return summary


def gate(results: list[CheckResult]) -> GateVerdict:
    """Pass when no mandatory check failed, is missing or inconclusive (warn does not block)."""
    failing = [r for r in results if r.mandatory and r.status in BLOCKING]
    mandatory = [r for r in results if r.mandatory]
    warns = sum(1 for r in results if r.status == "warn")
    if not mandatory:
        return GateVerdict(False, [], "no mandatory checks ran: nothing to accept")
    if failing:
        counts: dict[str, int] = {}
        for r in failing:
            counts[r.status] = counts.get(r.status, 0) + 1
        detail = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        first = failing[0]
        return GateVerdict(
            False,
            failing,
            f"{GATE_FAILED}{len(failing)} of {len(mandatory)} mandatory checks block ({detail}); "
            f"first: {first.name} — {first.message}",
        )
    suffix = f" with {warns} warning(s)" if warns else ""
    return GateVerdict(True, [], f"{GATE_PASSED}all {len(mandatory)} mandatory checks pass{suffix}")


def evidence_item_from_text(
    *, ref: str, node: str | None, text: str | bytes, kind: str | None = None
) -> EvidenceItem:
    """Parse an upload into an EvidenceItem, keeping a parse failure as the item's error."""
    try:
        detected = kind or detect_kind(text)
    except ParseError as exc:
        return EvidenceItem(ref=ref, node=node, kind="unknown", error=str(exc), error_line=exc.line)
    try:
        parsed = parse_evidence(text, detected)
    except ParseError as exc:
        return EvidenceItem(ref=ref, node=node, kind=detected, error=str(exc), error_line=exc.line)
    return EvidenceItem(ref=ref, node=node, kind=detected, parsed=parsed)
