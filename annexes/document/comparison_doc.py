"""The buyer's comparison summary, laid out as the annex template's sections and blocks.

It ranks every bid and details the leading ones (charts, rationale, side-by-side matrix); the
comparison page and its exports of the same scoring run hold every bid in full.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from annexes.document.blocks import CONFIDENTIAL_BUYER, Block
from annexes.document.blocks import kv as _kv
from annexes.document.comparison_charts import comparison_charts
from annexes.document.labels import humanise, when
from engine.scoring import CRITERIA
from evaluation.comparison import CRITERION_LABELS, SCORES_GROUP


def _weights_text(snap: Mapping[str, Any]) -> str:
    weights = snap.get("weights") or {}
    return "weights " + ", ".join(
        f"{CRITERION_LABELS.get(n, n)} {float(weights.get(n, 0)):g}" for n in CRITERIA
    )


# A summary ranks every bid and details the leading ones: a full rationale and matrix for every
# bid runs to pages no signatory reads. The ranking table shows TABLE_BIDS; the charts, rationale
# and matrix DETAIL_BIDS, which fit one side-by-side table, so every detailed bid sits beside the
# leaders it is compared with.
TABLE_BIDS = 10
DETAIL_BIDS = 6
# Bids side by side in one printed table: beyond this their columns are too narrow to read and
# figures break mid-number.
MATRIX_BIDS_PER_TABLE = 6


def _leading(charts: Mapping[str, Any]) -> dict[str, Any]:
    """The charts' per-bid series cut to the leading `DETAIL_BIDS` (bids come in rank order).
    The page draws goodput curves for more bids than the summary details: those are cut to the
    detailed bids too. The draw shares stay whole: they name whoever wins any draw."""
    n = DETAIL_BIDS
    prices = charts.get("prices") or {}
    names = (charts.get("names") or [])[:n]
    return {
        **charts,
        "names": names,
        "curves": [c for c in charts.get("curves") or [] if c.get("name") in names],
        "scores": [{**s, "values": s["values"][:n]} for s in charts.get("scores") or []],
        "prices": {key: values[:n] for key, values in prices.items()},
    }


def _side_by_side(groups: Sequence[Mapping[str, Any]], names: list[str]) -> list[Block]:
    """The matrix for print, over the first len(names) bids: rows where every bid says the same
    are listed once, and the rest goes in tables of at most `MATRIX_BIDS_PER_TABLE` bids, each
    with every row's label."""
    same: list[tuple[str, Any]] = []
    differing: list[tuple[str, list[dict[str, Any]]]] = []
    for group in groups:
        if group["title"] == SCORES_GROUP:
            continue  # the ranking and the rationale sections print every score
        rows = []
        for row in group["rows"]:
            cells = row["cells"][: len(names)]
            if len(names) > 1 and all(cell == cells[0] for cell in cells):
                same.append((f"{group['title']}: {row['label']}", cells[0]))
            else:
                rows.append({"label": row["label"], "cells": cells})
        if rows:
            differing.append((group["title"], rows))
    blocks: list[Block] = []
    if same:
        blocks.append(_kv(same, heading="The same in every bid"))
    step = MATRIX_BIDS_PER_TABLE
    for start in range(0, len(names) if differing else 0, step):
        chunk = slice(start, start + step)
        end = min(start + step, len(names))
        blocks.append(
            {
                "type": "table",
                "heading": f"Bids {start + 1}–{end} of {len(names)}"
                if len(names) > step
                else "Where the bids differ",
                "head": ["", *names[chunk]],
                "groups": [
                    (title, [[row["label"], *row["cells"][chunk]] for row in rows])
                    for title, rows in differing
                ],
            }
        )
    return blocks


def _ranking_blocks(bids: Sequence[Mapping[str, Any]]) -> list[Block]:
    """The leading bids as a table; the rest as one paragraph, qualified bids in rank order and
    then the disqualified with their reasons (a 200-row table cost more than the whole summary
    of 20 bids)."""

    def row(b: Mapping[str, Any]) -> list[Any]:
        reasons = "; ".join(b["disqualifications"]) or "—"
        return [b["name"], b["revision"], b["rank"] or "—", b["total"], reasons]

    head = ["Bid", "Revision", "Rank", "Total (0–100)", "Disqualified because"]
    blocks: list[Block] = [
        {"type": "table", "head": head, "rows": [row(b) for b in bids[:TABLE_BIDS]]}
    ]
    rest = bids[TABLE_BIDS:]
    if rest:
        qualified = [b for b in rest if b["rank"]]
        ranked = len(qualified)

        def entry(b: Mapping[str, Any]) -> str:
            named = f"{b['name']} (revision {b['revision']}) {b['total']}"
            if b["rank"]:
                return f"{b['rank']}. {named}"
            return f"{named}, disqualified: {'; '.join(b['disqualifications']) or '—'}"

        blocks.append(
            {
                "type": "text",
                "heading": f"The other {len(rest)} bids: {ranked} qualified in rank order, "
                f"then {len(rest) - ranked} disqualified",
                "text": " · ".join(map(entry, qualified + [b for b in rest if not b["rank"]])),
            }
        )
    return blocks


def _lots_note(snap: Mapping[str, Any]) -> list[Block]:
    """On a request in lots the ranking reads each bid as one offer for the whole request, so a
    bid on some lots is marked short of the request's GPUs: say so before the reader sees it."""
    if not snap.get("lots"):
        return []
    where = (
        "the award scenarios below split the lots between the bids"
        if snap.get("scenarios")
        else "the comparison page scores each lot's offers and the award scenarios split the lots"
    )
    return [
        {
            "type": "text",
            "note": True,
            "text": f"This request is in {snap['lots']} lots. The ranking reads each bid as one "
            "offer for the whole request (its lots together), so a bid that covers only some "
            f"lots falls short of the request's GPU count here and is marked so; {where}.",
        }
    ]


def comparison_document(snap: Mapping[str, Any], *, sha256: str, version: int) -> dict[str, Any]:
    req = snap["request"]
    bids = snap["bids"]
    ranking = _ranking_blocks(bids)
    # Grouped under each bid's name: one name cell per bid, not one per criterion's row.
    rationale_groups = [
        (
            f"{b['name']}, revision {b['revision']}: "
            + (f"rank {b['rank']}, " if b["rank"] else "disqualified, ")
            + f"total {b['total']}",
            [
                [CRITERION_LABELS.get(c["name"], humanise(c["name"])), c["score"], c["rationale"]]
                for c in b["criteria"]
            ],
        )
        for b in bids[:DETAIL_BIDS]
    ]
    sensitivity = snap.get("sensitivity") or {}
    detail_note = (
        [
            {
                "type": "text",
                "note": True,
                "text": f"The table above ranks all {len(bids)} bids; the charts, the rationale "
                f"and the matrix below detail the {DETAIL_BIDS} highest-ranked. The comparison "
                "page and its CSV and XLSX exports of the same scoring run hold every bid.",
            }
        ]
        if len(bids) > DETAIL_BIDS
        else []
    )
    sections = [
        {
            "id": "ranking",
            "title": "Ranking",
            "blocks": [
                {
                    "type": "text",
                    "text": f"Scored {when(snap.get('scored_at'))}; {_weights_text(snap)}.",
                },
                *_lots_note(snap),
                *ranking,
                *detail_note,
            ],
        },
        *(
            [{"id": "charts", "title": "Charts", "blocks": figures}]
            if (figures := comparison_charts(_leading(snap.get("charts") or {})))
            else []
        ),
        {
            "id": "rationale",
            "title": "Why each bid scored as it did",
            "blocks": [
                {
                    "type": "table",
                    "head": ["Criterion", "Score", "Rationale"],
                    "groups": rationale_groups,
                }
            ],
        },
        {
            "id": "matrix",
            "title": "Side-by-side matrix",
            "blocks": _side_by_side(
                snap.get("matrix", []), [b["name"] for b in bids[:DETAIL_BIDS]]
            ),
        },
        {
            "id": "sensitivity",
            "title": "Sensitivity",
            "blocks": [
                _kv(
                    [
                        ("Verdict", sensitivity.get("verdict") or "—"),
                        ("Winner", sensitivity.get("winner") or "—"),
                        ("Random weight draws", sensitivity.get("draws_text") or "—"),
                        (
                            "Moves that change the winner",
                            "; ".join(
                                f"{m['criterion']} {m['change']} → {m['winner']}"
                                for m in sensitivity.get("changing_moves", [])
                            )
                            or "none",
                        ),
                    ]
                )
            ],
        },
    ]
    if snap.get("scenarios"):
        sections.append(scenarios_section(snap["scenarios"]))
    return {
        "title": "Bid comparison summary",
        "header": f"{req['title']} · comparison · summary v{version}",
        "confidentiality": CONFIDENTIAL_BUYER,
        "sha256": sha256,
        "meta": [("Buyer", req["buyer"]), ("Request", req["title"]), ("Version", version)],
        "sections": sections,
        "signatures": [],
    }


def _money(value: Any) -> str:
    return f"${float(value):,.2f}" if value not in (None, "") else "—"


def _hours(value: Any, sign: bool = False) -> str:
    if value in (None, ""):
        return "—"
    return f"{float(value):+,.1f}" if sign else f"{float(value):,.1f}"


def _rule_cell(rc: Mapping[str, Any]) -> list[str]:
    if rc.get("cost_delta") in (None, ""):
        missing = "not computed" if rc.get("status") == "not_computed" else "—"
        return [rc["label"], missing, missing]
    return [rc["label"], _money(rc["cost_delta"]), _hours(rc.get("useful_delta"), sign=True)]


def scenarios_section(scenarios: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The award scenarios side by side, then each one's allocation and what each of its rules
    costs against the same scenario without it (rule costs do not add up)."""
    overview = [
        [
            s["name"] + (" (awarded)" if s.get("awarded") else ""),
            s["status"] + (", stale: the bids changed since" if s.get("stale") else ""),
            _money(s.get("cost")),
            _hours(s.get("useful_gpu_hours")),
            f"{float(s['useful_per_dollar']):.4f}" if s.get("useful_per_dollar") else "—",
        ]
        for s in scenarios
    ]
    allocation = [
        (
            f"{s['name']}: {s['objective']}",
            [
                [line["lot"], line["provider"], line["nodes"], line["gpus"], _money(line["value"])]
                for line in s["allocation"]
            ]
            or [["no allocation", "", "", "", ""]],
        )
        for s in scenarios
    ]
    rules = [(s["name"], [_rule_cell(rc) for rc in s["rule_costs"]]) for s in scenarios]
    blocks: list[Block] = [
        {
            "type": "table",
            "heading": "Side by side",
            "head": ["Scenario", "Status", "Cost", "Useful GPU-hours", "Useful GPU-h per $"],
            "rows": overview,
        },
        {
            "type": "table",
            "heading": "Allocation",
            "head": ["Lot", "Provider", "Nodes", "GPUs", "List value"],
            "groups": allocation,
        },
    ]
    if any(rows for _, rows in rules):
        blocks.append(
            {
                "type": "table",
                "heading": "What each rule costs, against the same scenario without it",
                "head": ["Rule", "Cost", "Useful GPU-hours"],
                "groups": [(name, rows) for name, rows in rules if rows],
            }
        )
    conflicts = [f"{s['name']}: " + "; ".join(s["conflicts"]) for s in scenarios if s["conflicts"]]
    if conflicts:
        blocks.append(
            {
                "type": "text",
                "text": "Infeasible, any one of these rules dropped makes it feasible: "
                + " · ".join(conflicts),
            }
        )
    return {"id": "scenarios", "title": "Award scenarios", "blocks": blocks}
