"""The hand-over baseline part of the contract annex: decision, commands, bus bandwidth."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from contracts.annex.charts import busbw_chart_svg
from contracts.annex.labels import flat, humanise, when

Block = dict[str, Any]


def _kv(rows: Any, heading: str = "") -> Block:
    return {"type": "kv", "heading": heading, "rows": list(rows)}


def baseline_section(snap: Mapping[str, Any]) -> dict[str, Any] | None:
    decision, baseline = snap.get("acceptance"), snap.get("baseline")
    if not decision and not baseline:
        return None
    blocks: list[Block] = []
    if decision:
        rows = [
            ("Decision", humanise(decision["kind"])),
            ("By", decision.get("by") or "—"),
            ("At (reservation clock start)", when(decision.get("at"))),
            ("Gate", decision.get("gate_summary") or "—"),
        ]
        if decision.get("reason"):
            rows.append(("Reason", decision["reason"]))
        blocks.append(_kv(rows))
    if baseline:
        nccl = baseline.get("nccl") or []
        if nccl:
            floors = ((snap.get("fixture") or {}).get("spec") or {}).get("thresholds", {})
            blocks += _baseline_nccl_blocks(nccl, floors.get("busbw_gbps") or {})
        versions = baseline.get("versions") or {}
        if versions:
            blocks.append(_kv(flat(versions, "versions"), "Versions"))
    return {"id": "baseline", "title": "Hand-over baseline", "blocks": blocks}


def _baseline_nccl_blocks(nccl: list[dict[str, Any]], floors: Mapping[str, Any]) -> list[Block]:
    """Whole-allocation runs in full, with the agreed floors; node subsets as a summary."""
    whole = [r for r in nccl if r.get("busbw_by_size")] or nccl
    blocks: list[Block] = [
        {
            "type": "table",
            "heading": "Bus bandwidth per collective",
            "head": ["Collective", "Node(s)", "Ranks", "Min busbw at large sizes (GB/s)", "NCCL"],
            "rows": [
                [
                    r.get("collective"),
                    r.get("node"),
                    r.get("ranks") or "—",
                    r.get("large_message_busbw_min_gbps") or "—",
                    r.get("nccl_version") or "—",
                ]
                for r in whole
            ],
        },
        {
            "type": "table",
            "heading": "Exact commands",
            "head": ["Collective", "Command"],
            "rows": sorted({(r.get("collective"), r.get("command") or "—") for r in whole}),
        },
    ]
    series = {
        f"{r.get('collective')} ({r.get('node')})": [
            (float(size), float(bw)) for size, bw in r.get("busbw_by_size", [])
        ]
        for r in whole
    }
    thresholds = {
        f"{r.get('collective')} ({r.get('node')})": float(floors[str(r.get("collective"))])
        for r in whole
        if isinstance(floors.get(str(r.get("collective"))), int | float)
    }
    svg = busbw_chart_svg(series, thresholds=thresholds)
    if svg:
        blocks.append(
            {
                "type": "svg",
                "heading": "Bus bandwidth against message size",
                "svg": svg,
                "caption": "Baseline bus bandwidth against message size",
            }
        )
    subsets = [r for r in nccl if r not in whole]
    if subsets:
        blocks.append(_per_node_summary(subsets))
    return blocks


def _per_node_summary(runs: list[dict[str, Any]]) -> Block:
    """Per collective: the spread over nodes and node subsets, naming the weakest.

    One row per collective rather than one per node keeps a 64-node annex readable; every
    per-node figure stays in the baseline snapshot whose SHA-256 the footer carries.
    """
    by_collective: dict[str, list[tuple[float, str]]] = {}
    for r in runs:
        value = r.get("large_message_busbw_min_gbps")
        if isinstance(value, int | float):
            by_collective.setdefault(str(r.get("collective")), []).append(
                (float(value), str(r.get("node")))
            )
    rows = []
    for collective, values in sorted(by_collective.items()):
        values.sort()
        low, weakest = values[0]
        rows.append(
            [
                collective,
                len(values),
                f"{low:.1f} ({weakest})",
                f"{values[len(values) // 2][0]:.1f}",
                f"{values[-1][0]:.1f}",
            ]
        )
    return {
        "type": "table",
        "heading": "Per node and node subset: busbw at large sizes (GB/s)",
        "head": ["Collective", "Runs", "Lowest (where)", "Median", "Highest"],
        "rows": rows,
    }
