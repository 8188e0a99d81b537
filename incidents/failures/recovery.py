"""Recovery acceptance: the contract's checklist items checked against evidence or sign-offs.

Plain data in and out: parsed evidence is the stored JSON of `acceptance.parsers.to_json`, the
hand-over baseline is `Baseline.snapshot`, terms are a `HandoffTerms` snapshot (decimals as text).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from .incident import ChecklistItem

PASS, FAIL, WAITING, SIGNED = "pass", "fail", "waiting", "signed"


@dataclass(frozen=True, slots=True)
class ItemState:
    key: str
    text: str
    evidence: str | None
    status: str  # pass | fail | waiting (nothing yet) | signed (signed off with a note)
    measured: str
    expected: str
    signable: bool  # may be closed by a signed note (no automatic check possible)

    @property
    def passed(self) -> bool:
        return self.status in (PASS, SIGNED)


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or value in (None, ""):
        return None
    try:
        return float(Decimal(str(value)))
    except (InvalidOperation, ValueError):
        return None


def terms_clocks(snapshot: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """`{"S1": {"response_minutes": 15, "restore_minutes": 240}, ...}` from a terms snapshot."""
    out: dict[str, dict[str, int]] = {}
    for sev in ("S1", "S2", "S3"):
        p = sev.lower()
        row = {
            k: int(v)
            for k in ("response_minutes", "restore_minutes")
            if (v := _num(snapshot.get(f"{p}_{k}"))) is not None
        }
        out[sev] = row
    return out


def terms_recovery(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    """The recovery terms in the shape `recovery_checklist` reads."""
    return {
        "diagnostics": "every GPU" if snapshot.get("recovery_diagnostics_all_gpus") else None,
        "nccl_margin_pct": _num(snapshot.get("recovery_nccl_margin_pct")),
        "smoke_step_time_margin_pct": _num(snapshot.get("recovery_smoke_margin_pct")),
        "loss_continuity": bool(snapshot.get("recovery_loss_continuity")) or None,
        "no_recurrence_hours": _num(snapshot.get("recovery_no_recurrence_hours")),
    }


def _busbw(row: Mapping[str, Any]) -> float | None:
    for side in ("out_of_place", "in_place"):
        value = (row.get(side) or {}).get("busbw")
        if isinstance(value, int | float):
            return float(value)
    return None


def nccl_large_busbw(parsed: Iterable[Mapping[str, Any]], large: int) -> dict[str, float]:
    """Lowest large-message busbw per collective across the uploaded recovery runs."""
    out: dict[str, float] = {}
    for doc in parsed:
        for run in [doc, *(doc.get("runs") or [])]:
            values = [
                v for row in run.get("rows") or []
                if row.get("size", 0) >= large and (v := _busbw(row)) is not None
            ]  # fmt: skip
            if values:
                coll = str(run.get("collective") or "unknown")
                out[coll] = min(out.get(coll, min(values)), min(values))
    return out


def _contracted(baseline: Mapping[str, Any] | None) -> bool:
    """After an override the baseline is the contracted thresholds: no margin below them."""
    return (baseline or {}).get("source") == "contracted"


def check_nccl(
    parsed: Sequence[Mapping[str, Any]], baseline: Mapping[str, Any] | None, margin_pct: float
) -> tuple[str, str, str]:
    """(status, measured, expected) for "nccl-tests within X % of the hand-over baseline".

    When the baseline is the contracted thresholds, recovery must reach the contracted floor
    itself: a margin below a contract's minimum would accept less than was agreed."""
    rows = [r for r in (baseline or {}).get("nccl") or [] if r.get("large_message_busbw_min_gbps")]
    if not rows:
        return WAITING, "", "the hand-over baseline has no nccl-tests result: sign off instead"
    margin_pct = 0.0 if _contracted(baseline) else margin_pct
    expected = _expected(rows, margin_pct, contracted=_contracted(baseline))
    if not parsed:
        return WAITING, "no recovery nccl-tests run uploaded", expected
    large = int((baseline or {}).get("large_message_bytes") or 1 << 30)
    measured = nccl_large_busbw(parsed, large)
    ok, parts = True, []
    for row in rows:
        coll = str(row.get("collective") or "unknown")
        ref = float(row["large_message_busbw_min_gbps"])
        floor = ref * (1 - margin_pct / 100)
        got = measured.get(coll)
        if got is None:
            ok = False
            parts.append(f"{coll}: no run")
            continue
        delta = (got - ref) / ref * 100
        ok = ok and got >= floor
        parts.append(f"{coll}: {got:.1f} GB/s ({delta:+.1f}% vs {ref:.1f})")
    return (PASS if ok else FAIL), "; ".join(parts), expected


def _expected(rows: Sequence[Mapping[str, Any]], margin: float, *, contracted: bool) -> str:
    parts = []
    for r in rows:
        ref = float(r["large_message_busbw_min_gbps"])
        coll = r.get("collective")
        if contracted:
            parts.append(f"{coll}: ≥ {ref:.1f} GB/s (contracted floor)")
            continue
        floor = ref * (1 - margin / 100)
        parts.append(f"{coll}: ≥ {floor:.1f} GB/s (baseline {ref:.1f} − {margin:g}%)")
    return "; ".join(parts)


def check_smoke(
    smoke_median: float | None, reference_median: float | None, margin_pct: float
) -> tuple[str, str, str]:
    """(status, measured, expected) for "smoke step time within X % of the pre-incident one"."""
    if reference_median is None:
        return WAITING, "", "no pre-incident step time: upload one, or sign off instead"
    limit = reference_median * (1 + margin_pct / 100)
    expected = f"≤ {limit:.3f} s (pre-incident {reference_median:.3f} s + {margin_pct:g}%)"
    if smoke_median is None:
        return WAITING, "no smoke-run step times uploaded", expected
    delta = (smoke_median - reference_median) / reference_median * 100
    status = PASS if smoke_median <= limit else FAIL
    return status, f"{smoke_median:.3f} s median ({delta:+.1f}%)", expected


def check_diagnostics(
    parsed: Sequence[Mapping[str, Any]], nodes: Sequence[str] = ()
) -> tuple[str, str, str]:
    """Every test passes. With `nodes` (the repaired ones), only a run from each of them counts:
    each document's `node` says where it ran; the last one per node wins."""
    expected = "every test Pass" + (f" on {', '.join(nodes)}" if nodes else "")
    if nodes:
        by_node = {str(doc.get("node") or ""): doc for doc in parsed}
        absent = [n for n in nodes if n not in by_node]
        if absent:
            others = sorted(n or "an unnamed node" for n in set(by_node) - set(nodes))
            elsewhere = f" (uploaded for {', '.join(others)} only)" if others else ""
            return WAITING, f"no dcgmi diag from {', '.join(absent)}{elsewhere}", expected
        parsed = [by_node[n] for n in nodes]
    if not parsed:
        return WAITING, "no dcgmi diag uploaded", expected
    results = [str(t.get("result")) for doc in parsed for t in doc.get("tests") or []]
    bad = [r for r in results if r not in ("Pass", "Skip")]
    status = PASS if results and not bad else FAIL
    return status, f"{len(results) - len(bad)} of {len(results)} tests pass", expected


def evaluate(
    items: Sequence[ChecklistItem],
    *,
    evidence: Mapping[str, Sequence[Mapping[str, Any]]],
    signed: Mapping[str, str],
    baseline: Mapping[str, Any] | None,
    reference_median: float | None,
    smoke_median: float | None,
    repaired_nodes: Sequence[str] = (),
) -> list[ItemState]:
    """Each item's state. Evidence decides where it can; a signed note closes the rest.
    `repaired_nodes`: where diagnostics must come from, when the incident names them."""
    out: list[ItemState] = []
    for item in items:
        status, measured, expected = WAITING, "", ""
        if item.evidence == "nccl-tests":
            status, measured, expected = check_nccl(
                evidence.get("nccl-tests", []), baseline, item.threshold or 0.0
            )
        elif item.evidence == "step-times":
            status, measured, expected = check_smoke(
                smoke_median, reference_median, item.threshold or 0.0
            )
        elif item.evidence == "dcgmi-diag":
            status, measured, expected = check_diagnostics(
                evidence.get("dcgmi-diag", []), repaired_nodes
            )
        # Sign-off closes items nothing uploaded can check, and checks with no reference.
        signable = item.evidence is None or (status == WAITING and "sign off" in expected)
        signable = signable or (item.evidence == "dcgmi-diag" and status == WAITING)
        if signable and item.key in signed and status != PASS:
            status, measured = SIGNED, signed[item.key]
        out.append(ItemState(item.key, item.text, item.evidence, status, measured, expected,
                             signable))  # fmt: skip
    return out
