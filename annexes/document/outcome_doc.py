"""The outcome report's snapshot, laid out as the annex template's sections and blocks, like
the monthly statement."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annexes.document.blocks import CONFIDENTIAL_BOTH as CONFIDENTIAL
from annexes.document.blocks import kv as _kv
from annexes.document.labels import when
from annexes.document.outcome_inference import inference_sections
from annexes.document.statement_doc import without_empty_tables


def _table(heading: str, head: list[str], rows: list[list[Any]]) -> dict[str, Any]:
    return {"type": "table", "heading": heading, "head": head, "rows": rows}


def _cost_section(cost: Mapping[str, Any] | None) -> dict[str, Any]:
    if cost is None:
        rows = [("", "The buyer has not named the result, or the term has not started.")]
    else:
        counted = f"{cost['accepted']:,} accepted, {cost['replayed']:,} replayed, " + (
            f"{cost['rejected']:,} rejected"
        )
        rows = [
            ("Result", f"{cost['label']} ({counted})"),
            ("Paid after credits", cost["paid"]),
            ("Realised", cost["working"]),
            ("Predicted", cost["predicted"]),
            *[("Why they differ", reason) for reason in cost["reasons"]],
        ]
    return {"id": "cost", "title": "Cost per accepted result", "blocks": [_kv(rows)]}


def _packet_blocks(n: int, miss: Mapping[str, Any]) -> list[dict[str, Any]]:
    window = f"{when(miss['start'])} to {when(miss['end'])}"
    head = _kv(
        [
            ("Promise", miss["promise"]),
            ("Promised", miss["promised"]),
            ("Observed", miss["observed"]),
            ("Window", window),
            ("Jobs", ", ".join(miss["jobs"]) or "—"),
            ("Nodes", ", ".join(miss["nodes"]) or "—"),
        ],
        heading=f"Miss {n}: {miss['promise']}",
    )
    records = _table(
        f"Miss {n}: the scheduler's records of the window",
        ["At", "Record", "Detail (file:line)"],
        [[when(r["at"]), f"{r['what']} · {r['subject']}", f"{r['detail']} ({r['where']})"]
         for r in miss["records"]],
    )  # fmt: skip
    nodes = _table(
        f"Miss {n}: node states",
        ["Snapshot", "Node", "Allocatable", "Healthy", "Why not"],
        [[when(s["at"]), s["node"], "yes" if s["allocatable"] else "no",
          "yes" if s["healthy"] else "no", s["why"] or "—"] for s in miss["node_states"]],
    )  # fmt: skip
    incidents = _table(
        f"Miss {n}: incidents of the window", ["#", "Severity", "Summary"],
        [[i["id"], i["severity"], i["summary"] or "—"] for i in miss["incidents"]],
    )  # fmt: skip
    bills = _table(
        f"Miss {n}: reconciled bills of the month", ["File", "Allowed", "Credits"],
        [[b["file"], b["allowed"], b["credits"]] for b in miss["bills"]],
    )  # fmt: skip
    # Snapshots frozen before planned changes were listed have no "changes".
    changes = _table(
        f"Miss {n}: planned changes of the window",
        ["#", "Change", "Nodes", "Window", "Canary", "Rolled out"],
        [[c["id"], c["change"], c["nodes"], c["window"], c["canary"], c["rollout"]]
         for c in miss.get("changes", [])],
    )  # fmt: skip
    return [head, records, nodes, incidents, changes, bills]


def outcome_document(snap: Mapping[str, Any], *, sha256: str, version: int) -> dict[str, Any]:
    req, period = snap["request"], snap["period"] or "term to date"
    window = f"{when(snap['window']['start'])} to {when(snap['window']['end'])}"
    envelope = _table(
        "Envelope promised against observed", ["Promise", "Promised", "Observed"],
        snap["envelope"],
    )  # fmt: skip
    capacities = _table(
        "Average GPUs over each day's hours (UTC)",
        ["Day", "Contracted", "Allocatable", "Healthy", "In use"],
        [[d["day"], d["contracted"], d["allocatable"], d["healthy"], d["in_use"]]
         for d in snap["capacities"]],
    )  # fmt: skip
    receipts = _table(
        "Each job against the promised p95",
        ["Job", "GPUs", "Submitted", "Admitted", "Running", "To running (min)", "p95"],
        [[r["job"], r["gpus"], when(r["submitted"]), when(r["admitted"]), when(r["started"]),
          r["to_running"], r["within"]] for r in snap["receipts"]],
    )  # fmt: skip
    reclaims = _table(
        "Reclaims against the terms",
        ["Job", "At", "Why", "Back running (min)", "Against the terms"],
        [[c["job"], when(c["at"]), c["reason"], c["back"], "; ".join(c["misses"]) or "within"]
         for c in snap["reclaims"]],
    )  # fmt: skip
    packets = [b for n, m in enumerate(snap["misses"], 1) for b in _packet_blocks(n, m)]
    files = _table(
        "Records read", ["File", "What", "Uploaded by", "SHA-256"],
        [[f["file"], f["kind"], f"the {f['party']}", f["sha256"][:12] + "…"]
         for f in snap["files"]],
    )  # fmt: skip
    sections: list[dict[str, Any]] = [
        {"id": "envelope", "title": "Envelope promised against observed",
         "blocks": [_kv([("Period", period), ("Window", window), ("Figures as of",
                                                                  when(snap["as_of"]))]),
                    envelope]},
        {"id": "capacities", "title": "The four capacities", "blocks": [capacities]},
        {"id": "receipts", "title": "Start receipts", "blocks": [receipts]},
        {"id": "reclaims", "title": "Reclaims", "blocks": [reclaims]},
        _cost_section(snap["cost"]),
        {"id": "misses", "title": "Missed promises: diagnostic packets", "blocks": packets},
        *inference_sections(snap.get("inference") or []),
        {"id": "files", "title": "Evidence", "blocks": [files]},
    ]  # fmt: skip
    without_empty_tables(sections, empty="None in this period.")
    return {
        "title": f"Outcome report — {period}",
        "header": f"{req['title']} · outcome {period} · v{version}",
        "confidentiality": CONFIDENTIAL,
        "sha256": sha256,
        "meta": [
            ("Buyer", req["buyer"]),
            ("Provider", snap["provider"]),
            ("Request", req["title"]),
            ("Period", period),
            ("Report version", version),
        ],
        "sections": sections,
        "signatures": [],
    }
