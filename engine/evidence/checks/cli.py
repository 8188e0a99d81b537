"""Helpers behind `manage.py check_evidence` (kept here so the command stays thin)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.evidence.checks.model import (
    CheckResult,
    EvidenceItem,
    GateVerdict,
    evidence_item_from_text,
)
from engine.evidence.parsers import KINDS

# Parent directories that say nothing about a node (generic names, or named after an evidence
# kind): evidence there covers the whole allocation.
# The tools' own names count too (dcgmi/, nvidia-smi/), as people sort captures by tool.
WHOLE_ALLOCATION_DIRS = {
    *("", ".", "all", "allocation", "whole", "evidence", "cluster", *KINDS),
    *("dcgmi", "dcgm", "nvidia-smi", "nccl", "step-time", "fixture", "results"),
}


class UnusableInput(Exception):
    """A missing file or an unreadable fixture spec (exit status 2)."""


def split_node(arg: str) -> tuple[str | None, Path]:
    """'node-a:logs/x.txt' -> ('node-a', path); 'node-a/x.txt' -> ('node-a', path).

    An existing path containing ':' is taken as a path. A parent directory named like
    `all` or `evidence` (or none) means the whole allocation (node None).
    """
    if ":" in arg and not Path(arg).exists():
        node, _, rest = arg.partition(":")
        return (node or None), Path(rest)
    path = Path(arg)
    parent = path.parent.name
    if path.parent.resolve() == Path.cwd().resolve() or parent.lower() in WHOLE_ALLOCATION_DIRS:
        return None, path
    return parent, path


def load_fixture(path: str | Path) -> dict[str, Any]:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise UnusableInput(f"cannot read fixture spec {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise UnusableInput(f"fixture spec {path} line {exc.lineno}: {exc.msg}") from None
    if not isinstance(doc, dict):
        raise UnusableInput(f"fixture spec {path} is not a JSON object")
    return doc


def items_from_args(args: Sequence[str], *, kind: str | None = None) -> list[EvidenceItem]:
    items = []
    for arg in args:
        node, path = split_node(arg)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise UnusableInput(f"cannot read {path}: {exc.strerror or exc}") from None
        items.append(evidence_item_from_text(ref=str(path), node=node, text=data, kind=kind))
    return items


def format_table(results: Sequence[CheckResult], verdict: GateVerdict) -> str:
    rows = [("STATUS", "CHECK", "NODE", "MEASURED", "EXPECTED", "EVIDENCE")]
    for r in results:
        where = f"{r.evidence_ref}:{r.line}" if r.evidence_ref and r.line else r.evidence_ref
        rows.append(
            (
                r.status.upper() + ("" if r.mandatory else "*"),
                r.name,
                r.node or "-",
                r.measured[:60],
                r.expected[:50],
                where or "-",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    lines.append("")
    lines.extend(f"- {r.name}: {r.message}" for r in results if r.status != "pass")
    lines.append("(* = advisory, does not block the gate)")
    lines.append(verdict.summary)
    return "\n".join(lines)


def results_json(results: Sequence[CheckResult], verdict: GateVerdict) -> dict[str, Any]:
    return {
        "passed": verdict.passed,
        "summary": verdict.summary,
        "checks": [dataclasses.asdict(r) for r in results],
    }
