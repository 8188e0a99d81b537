"""The hand-over baseline part of the contract annex: decision, commands, bus bandwidth."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annexes.document.blocks import Block
from annexes.document.blocks import kv as _kv
from annexes.document.charts import busbw_chart_svg, chart_legend
from annexes.document.labels import flat, humanise, when


def baseline_section(snap: Mapping[str, Any]) -> dict[str, Any] | None:
    decision, baseline = snap.get("acceptance"), snap.get("baseline")
    if not decision and not baseline:
        return None
    blocks: list[Block] = []
    contracted = (baseline or {}).get("source") == "contracted"
    if decision:
        blocks += _decision_blocks(decision, baseline, contracted=contracted)
    if baseline and contracted:
        blocks.append(_contracted_table(baseline.get("nccl") or []))
    elif baseline:
        nccl = baseline.get("nccl") or []
        if nccl:
            floors = ((snap.get("fixture") or {}).get("spec") or {}).get("thresholds", {})
            blocks += _baseline_nccl_blocks(nccl, floors.get("busbw_gbps") or {})
        versions = baseline.get("versions") or {}
        if versions:
            blocks.append(_kv(flat(versions, "versions"), "Versions"))
    return {"id": "baseline", "title": "Hand-over baseline", "blocks": blocks}


def _decision_blocks(
    decision: Mapping[str, Any], baseline: Mapping[str, Any] | None, *, contracted: bool
) -> list[Block]:
    override = decision.get("override")
    if override:
        rows = [
            ("Decision", "Accepted over a failing gate (override)"),
            ("Requested by", f"{override.get('requested_by') or '—'}, "
                             f"{when(override.get('requested_at'))}"),
            ("Approved by", f"{override.get('approved_by') or '—'}, "
                            f"{when(override.get('approved_at'))}"),
        ]  # fmt: skip
    else:
        rows = [("Decision", humanise(decision["kind"])), ("By", decision.get("by") or "—")]
    rows.append(("At", when(decision.get("at"))))
    if decision.get("clock_starts_at") or decision["kind"] != "rejected":
        start = decision.get("clock_starts_at") or decision.get("at")
        rows.append(("Reservation clock starts", when(start)))
    rows.append(("Gate", decision.get("gate_summary") or "—"))
    if decision.get("reason"):
        rows.append(("Reason", decision["reason"]))
    if baseline:
        run = (baseline.get("run") or {}).get("label") or "the accepted run"
        if contracted:
            source = "The contracted thresholds: the overridden run is not the baseline"
        elif override:
            source = f"The overridden run “{run}”, as the buyer chose explicitly"
        else:
            source = f"The accepted run “{run}”"
        rows.append(("Recovery baseline", source))
    blocks = [_kv(rows)]
    if override:
        waived = override.get("waived") or []
        blocks.append(
            {
                "type": "table",
                "heading": f"Waived blocking checks ({len(waived)})",
                "head": ["Check", "Measured", "Expected"],
                "rows": [
                    [w.get("title") or w.get("code"), w.get("measured") or "—",
                     w.get("expected") or "—"]
                    for w in waived
                ],
            }
        )  # fmt: skip
    return blocks


def _contracted_table(nccl: list[dict[str, Any]]) -> Block:
    return {
        "type": "table",
        "heading": "Contracted floors recovery is measured against",
        "intro": "Bus bandwidth at large messages, GB/s. The run was accepted by override; "
        "a recovery must reach these floors, not the run's own figures.",
        "head": ["Collective", "Contracted floor"],
        "rows": [[str(r.get("collective")), _gbps(r.get("large_message_busbw_min_gbps"))]
                 for r in nccl],
    }  # fmt: skip


def _baseline_nccl_blocks(nccl: list[dict[str, Any]], floors: Mapping[str, Any]) -> list[Block]:
    """One row per collective: the agreed floor, the whole-allocation run and the spread over
    nodes; then the exact commands, verbatim, and the curves as a chart."""
    whole = [r for r in nccl if r.get("busbw_by_size")] or nccl
    subsets = [r for r in nccl if r not in whole]
    blocks: list[Block] = [_per_collective_table(whole, subsets, floors)]
    commands = sorted({(str(r.get("collective")), r.get("command") or "—") for r in whole})
    blocks.append(
        {
            "type": "code",
            "heading": "Exact commands",
            # A shell listing: what was run can be copied and run again as it stands.
            "text": "\n".join(f"# {collective}\n{command}" for collective, command in commands),
        }
    )
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
                "legend": chart_legend(series),
                "dashed": "agreed floor" if thresholds else "",
                "caption": "Baseline bus bandwidth against message size",
            }
        )
    return blocks


def _gbps(value: Any) -> str:
    return f"{float(value):.1f}" if isinstance(value, int | float) else "—"


def _per_collective_table(
    whole: list[dict[str, Any]], subsets: list[dict[str, Any]], floors: Mapping[str, Any]
) -> Block:
    """Per collective, the figures a later incident is judged against, side by side.

    Node subsets are summarised (lowest, naming the node; median; highest) rather than listed
    node by node, which keeps a 64-node annex readable; every per-node figure stays in the
    baseline snapshot whose SHA-256 the footer carries.
    """
    by_node: dict[str, list[tuple[float, str]]] = {}
    for r in subsets:
        value = r.get("large_message_busbw_min_gbps")
        if isinstance(value, int | float):
            by_node.setdefault(str(r.get("collective")), []).append(
                (float(value), str(r.get("node")))
            )
    whole_by_collective = {str(r.get("collective")): r for r in whole}
    rows = []
    for collective in sorted(set(whole_by_collective) | set(by_node)):
        run = whole_by_collective.get(collective, {})
        values = sorted(by_node.get(collective, []))
        spread = ["—", "—", "—"]
        if values:
            low, weakest = values[0]
            spread = [
                f"{low:.1f} ({weakest})",
                f"{values[len(values) // 2][0]:.1f}",
                f"{values[-1][0]:.1f}",
            ]
        rows.append(
            [
                collective,
                _gbps(floors.get(collective)),
                _gbps(run.get("large_message_busbw_min_gbps")),
                len(values) or "—",
                *spread,
            ]
        )
    head = [
        "Collective",
        "Agreed floor",
        "Whole allocation",
        "Node runs",
        "Lowest node (where)",
        "Median node",
        "Highest node",
    ]
    runs = {row[3] for row in rows}
    runs_text = "how many per collective"
    if len(runs) == 1:  # the same count everywhere: say it once, above the table
        count = runs.pop()
        runs_text = "none" if count == "—" else f"{count} per collective"
        head.pop(3)
        for row in rows:
            row.pop(3)
    ranks = sorted({str(r.get("ranks")) for r in whole if r.get("ranks")})
    versions = sorted({str(r.get("nccl_version")) for r in whole if r.get("nccl_version")})
    nodes = sorted({str(r.get("node")) for r in whole if r.get("node")})
    note = (
        f"Bus bandwidth at large messages, GB/s. Whole-allocation runs: {', '.join(nodes) or '—'}"
        f" on {', '.join(ranks) or '—'} ranks, NCCL {', '.join(versions) or '—'}. Runs on single "
        f"nodes or node subsets: {runs_text}, with their lowest, median and highest."
    )
    return {
        "type": "table",
        "heading": "Bus bandwidth per collective",
        "intro": note,
        "head": head,
        "rows": rows,
    }
