"""Recovery acceptance: the contract's checklist items checked against evidence or sign-offs.

Plain data in and out: parsed evidence is the stored JSON of `engine.evidence.parsers.to_json`, the
hand-over baseline is `Baseline.snapshot`, terms are a `HandoffTerms` snapshot (decimals as text).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from engine.formatting import countdown

from .incident import ChecklistItem
from .recovery_loss import DEFAULT_LOSS_TOLERANCE_PCT, check_loss
from .recovery_nccl import FINDING, NcclShape, check_nccl

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


@dataclass(frozen=True, slots=True)
class NodeShape:
    """What one repaired node must show: the contract's GPUs per node and GPU model."""

    gpus_per_node: int | None = None
    gpu_model: str | None = None  # as the contract names it: "H200"

    def text(self) -> str:
        count = self.gpus_per_node if self.gpus_per_node else "every"
        return f"{count} × {self.gpu_model}" if self.gpu_model else f"{count} GPUs"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _model_matches(agreed: str, name: str) -> bool:
    return name.strip().lower() == agreed.strip().lower()


def _diag_shape(doc: Mapping[str, Any], shape: NodeShape) -> str | None:
    """Why this dcgmi run does not cover the contract's node, or None."""
    count = doc.get("gpu_count")
    models = [str(m) for m in doc.get("gpu_models") or []]
    known = [m for m in models if not m.startswith("unknown ")]
    wrong_model = bool(shape.gpu_model and known and any(
        not _model_matches(shape.gpu_model, m) for m in known
    ))  # fmt: skip
    short = bool(shape.gpus_per_node and isinstance(count, int) and count < shape.gpus_per_node)
    if not (wrong_model or short) and isinstance(count, int):
        return None
    tested = f"{_plural(count, 'GPU')}" if isinstance(count, int) else "an unknown number of GPUs"
    if models:
        tested += f" ({', '.join(models)})"
    if not isinstance(count, int) and shape.gpus_per_node:
        return (
            f"{tested} tested: the file names neither GPU device ids nor per-GPU results; "
            f"the contract's nodes have {shape.text()}"
        )
    return f"{tested} tested; the contract's nodes have {shape.text()}"


def _same_file_for_two_nodes(parsed: Sequence[Mapping[str, Any]]) -> list[str]:
    """One diagnostics file (same SHA-256) counted for two nodes: it ran on one of them at most."""
    seen: dict[str, str] = {}
    problems = []
    for doc in parsed:
        sha, label = str(doc.get("sha256") or ""), str(doc.get("node") or "")
        if not sha:
            continue
        first = seen.setdefault(sha, label)
        if first != label:
            problems.append(
                f"the same file (SHA-256 {sha[:12]}…) is given for {first} and {label}: "
                "each node needs its own run"
            )
    return problems


def check_diagnostics(
    parsed: Sequence[Mapping[str, Any]],
    nodes: Sequence[str] = (),
    shape: NodeShape | None = None,
) -> tuple[str, str, str]:
    """Every test passes on every GPU of the contract's node. With `nodes` (the repaired ones),
    only a run from each of them counts: each document's `node` says where it ran (the last one
    per node wins); a run labelled with another node is refused by name. With `shape`, a run
    covering fewer GPUs than the contract's node, or another GPU model, is refused by name."""
    shape = shape or NodeShape()
    where = f" on {', '.join(nodes)}" if nodes else ""
    every = f" on all {shape.text()}" if shape.gpus_per_node or shape.gpu_model else ""
    expected = f"every test Pass{every}{where}"
    if nodes:
        by_node = {str(doc.get("node") or ""): doc for doc in parsed}
        absent = [n for n in nodes if n not in by_node]
        if absent:
            others = sorted(n for n in set(by_node) - set(nodes) if n)
            if others:
                return (
                    FAIL,
                    f"dcgmi diag from {', '.join(others)}, not a repaired node; none from "
                    f"{', '.join(absent)}",
                    expected,
                )
            unnamed = " (an upload names no node: give the node it ran on)" if by_node else ""
            return WAITING, f"no dcgmi diag from {', '.join(absent)}{unnamed}", expected
        parsed = [by_node[n] for n in nodes]
    if not parsed:
        return WAITING, "no dcgmi diag uploaded", expected
    findings, problems = _same_file_for_two_nodes(parsed), []
    for doc in parsed:
        label = str(doc.get("node") or "")
        # The collector's header (engine/evidence/parsers/header.py) names the host it ran on.
        host = str(doc.get("hostname") or (doc.get("origin") or {}).get("host") or "")
        if label and host and host.split(".")[0] != label.split(".")[0]:
            findings.append(f"the file was written on {host}, labelled {label}")
        if why := _diag_shape(doc, shape):
            problems.append(f"{label}: {why}" if label and len(parsed) > 1 else why)
    if problems:  # a run that did not cover the contract's GPUs is never explained away
        return FAIL, "; ".join(problems + findings), expected
    if findings:
        return FINDING, "; ".join(findings), expected
    results = [str(t.get("result")) for doc in parsed for t in doc.get("tests") or []]
    bad = [r for r in results if r not in ("Pass", "Skip")]
    status = PASS if results and not bad else FAIL
    counts = sorted({f"{d['gpu_count']} GPUs" for d in parsed if d.get("gpu_count")})
    on = f" on {', '.join(counts)}" if counts else ""
    measured = f"{len(results) - len(bad)} of {len(results)} tests pass{on}"
    unknown = [d for d in parsed if not any(
        not str(m).startswith("unknown ") for m in d.get("gpu_models") or []
    )]  # fmt: skip
    if shape.gpu_model and unknown:
        measured += "; GPU model cannot be compared (the file names no known GPU device id)"
    return status, measured, expected


@dataclass(frozen=True, slots=True)
class Recurrence:
    """Another incident of the reservation, opened after the restore, touching the same nodes."""

    pk: int
    opened_at: datetime
    nodes: tuple[str, ...] = ()


def _left(delta: timedelta) -> str:
    return f"{countdown(max(0.0, delta.total_seconds()))} left"


def check_recurrence(
    *,
    hours: float,
    restored_at: datetime | None,
    now: datetime,
    recurrences: Sequence[Recurrence],
    nodes: Sequence[str] = (),
    disputed: str | None = None,
) -> tuple[str, str, str]:
    """(status, measured, expected) for "no recurrence for N hours": the timer starts at the
    restore; the item passes by itself once it has run out with no incident on the same nodes
    (`recurrences`, already limited to the reservation and the nodes) opened in that time."""
    on = f"on {', '.join(nodes)}" if nodes else "on this reservation (the incident names no node)"
    expected = f"no new incident {on} for {hours:g} h after the restore"
    if restored_at is None:
        return WAITING, "the timer starts when the restore is declared", expected
    end = restored_at + timedelta(hours=hours)
    seen = sorted((r for r in recurrences if restored_at <= r.opened_at <= end),
                  key=lambda r: r.opened_at)  # fmt: skip
    if seen:
        first = seen[0]
        where = f" on {', '.join(first.nodes)}" if first.nodes else ""
        gap = first.opened_at - restored_at
        return (
            FAIL,
            f"incident #{first.pk} opened {first.opened_at:%Y-%m-%d %H:%M} UTC{where}, "
            f"{_left(gap).removesuffix(' left')} after the restore",
            expected,
        )
    if now < end:
        return WAITING, f"{_left(end - now)} (until {end:%Y-%m-%d %H:%M} UTC)", expected
    if disputed:
        return WAITING, f"disputed: {disputed}", expected
    return PASS, f"{hours:g} h since the restore without a new incident", expected


@dataclass(frozen=True, slots=True)
class Context:
    """What the checks compare against, beyond the uploads: plain values from the selectors."""

    nccl: NcclShape = field(default_factory=NcclShape)
    node: NodeShape = field(default_factory=NodeShape)
    checkpoint_step: int | None = None
    loss_tolerance_pct: float = DEFAULT_LOSS_TOLERANCE_PCT
    now: datetime | None = None
    restored_at: datetime | None = None
    recurrences: tuple[Recurrence, ...] = ()
    disputed: Mapping[str, str] = field(default_factory=dict)


def evaluate(
    items: Sequence[ChecklistItem],
    *,
    evidence: Mapping[str, Sequence[Mapping[str, Any]]],
    signed: Mapping[str, str],
    baseline: Mapping[str, Any] | None,
    reference_median: float | None,
    smoke_median: float | None,
    repaired_nodes: Sequence[str] = (),
    context: Context | None = None,
) -> list[ItemState]:
    """Each item's state. Evidence decides where it can; a signed note closes the rest.
    `repaired_nodes`: where diagnostics must come from, when the incident names them.

    Loss continuity and no recurrence are recognised by their keys, so incidents opened before
    they were checked (their frozen checklist says "sign-off") are checked too."""
    given = _Given(
        evidence, baseline, reference_median, smoke_median, repaired_nodes, context or Context()
    )
    out: list[ItemState] = []
    for item in items:
        evidence_kind, (status, measured, expected) = _check(item, given)
        signable = _signable(item, evidence_kind, status, expected)
        if signable and item.key in signed and status != PASS:
            status, measured = SIGNED, signed[item.key]
        out.append(ItemState(item.key, item.text, evidence_kind, status, measured, expected,
                             signable))  # fmt: skip
    return out


@dataclass(frozen=True, slots=True)
class _Given:
    """What every item is checked against."""

    evidence: Mapping[str, Sequence[Mapping[str, Any]]]
    baseline: Mapping[str, Any] | None
    reference_median: float | None
    smoke_median: float | None
    repaired_nodes: Sequence[str]
    context: Context


def _check(item: ChecklistItem, given: _Given) -> tuple[str | None, tuple[str, str, str]]:
    """The evidence kind the item is checked on, and its (status, measured, expected)."""
    ctx, evidence = given.context, given.evidence
    if item.evidence == "nccl-tests":
        threshold = item.threshold or 0.0
        found = check_nccl(evidence.get("nccl-tests", []), given.baseline, threshold, ctx.nccl)
        return item.evidence, found
    if item.evidence == "step-times":
        threshold = item.threshold or 0.0
        return item.evidence, check_smoke(given.smoke_median, given.reference_median, threshold)
    if item.evidence == "dcgmi-diag":
        diag = evidence.get("dcgmi-diag", [])
        return item.evidence, check_diagnostics(diag, given.repaired_nodes, ctx.node)
    if item.key == "loss_continuity":
        logs = evidence.get("training-log", [])
        return "training-log", check_loss(
            logs[-1] if logs else None,
            checkpoint_step=ctx.checkpoint_step,
            tolerance_pct=ctx.loss_tolerance_pct,
        )
    if item.key == "no_recurrence_hours" and ctx.now is not None:
        return item.evidence, check_recurrence(
            hours=item.threshold or 24.0,
            restored_at=ctx.restored_at,
            now=ctx.now,
            recurrences=ctx.recurrences,
            nodes=given.repaired_nodes,
            disputed=ctx.disputed.get(item.key),
        )
    return item.evidence, (WAITING, "", "")


def _signable(item: ChecklistItem, evidence_kind: str | None, status: str, expected: str) -> bool:
    """Sign-off closes items nothing uploaded can check, and checks with no reference. No
    recurrence may also be signed (once its hours have run), never over a recurrence."""
    return (
        (evidence_kind is None and status != FAIL)
        or (status == WAITING and "sign off" in expected)
        or (item.evidence == "dcgmi-diag" and status == WAITING)
        or status == FINDING
    )
