"""The monthly statement's snapshot, laid out as the annex template's sections and blocks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annexes.document.blocks import CONFIDENTIAL_BOTH as CONFIDENTIAL
from annexes.document.blocks import kv as _kv
from annexes.document.labels import when
from annexes.document.statement import MONTH_FIGURES


def _table(heading: str, head: list[str], rows: list[list[Any]]) -> dict[str, Any]:
    return {"type": "table", "heading": heading, "head": head, "rows": rows}


def _text(fig: Mapping[str, Any]) -> str:
    """A figure as the snapshot printed it through engine.formatting, at its unit's precision."""
    return str(fig.get("text") or "—")


def _realised_section(realised: Mapping[str, Any]) -> dict[str, Any]:
    """Each total of the term so far beside its working, as one report worked them."""
    useful, credits, paid = realised["useful_gpu_hours"], realised["credits"], realised["paid"]
    cost = realised["cost_per_useful_gpu_hour"]
    rows = [
        ("Useful GPU-hours to date", _text(useful)),
        ("How they are worked", useful["formula"]),
        ("Credits applied (USD)", _text(credits)),
        ("How they are worked", credits["formula"]),
        ("Paid after credits (USD)", _text(paid)),
        ("How it is worked", paid["formula"]),
        ("Realised (USD per useful GPU-hour)", _text(cost)),
        ("How it is worked", cost["formula"]),
        ("Predicted at the award", realised["predicted"] or "no prediction"),
        *[("Why they differ", reason) for reason in realised["reasons"]],
    ]
    return {
        "id": "realised",
        "title": "Realised cost per useful GPU-hour",
        "blocks": [_kv(rows)],
    }


def _disputed_section(disputed: Mapping[str, Any]) -> dict[str, Any]:
    """Both parties' figures while incidents are disputed, and whose the totals above are."""
    used = disputed["totals_use"]

    def head(party: str) -> str:
        return f"{party.capitalize()}'s figure" + (" (used in the totals)" if party == used else "")

    opened = _table(
        "Disputed incidents",
        ["#", "Severity", "Opened by", "Disputed", "Reason"],
        [
            [i["id"], i["severity"], f"the {i['opened_by'] or 'unknown party'}",
             when(i["disputed_at"]), i["reason"] or "—"]
            for i in disputed["incidents"]
        ],
    )  # fmt: skip
    figures = _table(
        "Each party's figures (the disputed incidents its side opened counted, those it "
        "disputes left out)",
        ["Figure", head("buyer"), head("provider")],
        [[f["label"], f.get("buyer", "—"), f.get("provider", "—")] for f in disputed["figures"]],
    )
    totals = (
        f"The {used}'s figures: the disputed incidents are left out until the parties settle."
        if used
        else "Neither party's: each opened some of the disputed incidents, and the totals count "
        "none of them until the parties settle."
    )
    return {
        "id": "disputed",
        "title": "Disputed incidents: both figures",
        "blocks": [opened, figures, _kv([("The totals above use", totals)])],
    }


def statement_document(snap: Mapping[str, Any], *, sha256: str, version: int) -> dict[str, Any]:
    req, month, period = snap["request"], snap["month"], snap["period"]
    figures = _table(
        "The month's figures",
        ["Figure", "Value", "How it is worked"],
        [[label, _text(month[key]), month[key]["formula"]] for key, label in MONTH_FIGURES],
    )
    nodes = _table(
        "Per node, term to the statement's date",
        ["Node", "Availability", "Down (h)", "Agreed maintenance (h)"],
        [
            [n["node"], _text(n["availability_pct"]), n["down_hours"], n["maintenance_hours"]]
            for n in snap["nodes"]
        ],
    )
    incidents = _table(
        "Incidents in the month",
        ["#", "Severity", "From", "Restored", "Nodes", "Summary"],
        [
            [i["id"], i["severity"], when(i["opened_at"]), when(i["restored_at"]),
             ", ".join(i["nodes"]), i["summary"] or "—"]
            for i in snap["incidents"]
        ],
    )  # fmt: skip
    estimates = [
        (f"Incident #{i['id']}: last checkpoint", i["checkpoint"])
        for i in snap["incidents"]
        if i.get("checkpoint")
    ]
    maintenance = _table(
        "Maintenance in the month",
        ["#", "From", "To", "Nodes", "Counts as", "Reason"],
        [
            [w["id"], when(w["starts_at"]), when(w["ends_at"]), ", ".join(w["nodes"]),
             "agreed maintenance" if w["excluded"] else "downtime (short notice, not agreed)",
             w["reason"]]
            for w in snap["maintenance"]
        ],
    )  # fmt: skip
    bills = _table(
        "Reconciled bills covering the month",
        ["File", "SHA-256", "Lines", "Billed", "Allowed", "Credits", "Net", "Differences"],
        [
            [b["file"], b["sha256"][:12] + "…", b["lines"], b["billed"], b["allowed"],
             b["credits"], b["net"],
             ", ".join(f"{rule} {n}" for rule, n in b["by_rule"].items()) or "none"]
            for b in snap["bills"]
        ],
    )  # fmt: skip
    checks = [("Check", b["check"]) for b in snap["bills"] if b.get("check")]
    sections: list[dict[str, Any]] = [
        {
            "id": "availability",
            "title": "Availability and credits",
            "blocks": [
                _kv(
                    [
                        ("Month", period),
                        ("Term", f"{when(snap['term']['start'])} to {when(snap['term']['end'])}"),
                        ("Figures as of", when(snap["as_of"])),
                        ("Terms", snap["terms_source"]),
                        ("Tier reached", f"below {month['tier']} %" if month["tier"] else "none"),
                        ("Clock breaches", month["breaches"]),
                    ]
                ),
                figures,
                nodes,
            ],
        },
        {
            "id": "events",
            "title": "Incidents and maintenance",
            "blocks": [incidents, *([_kv(estimates)] if estimates else []), maintenance],
        },
        {
            "id": "bills",
            "title": "Billing reconciliation",
            "blocks": [bills, *([_kv(checks)] if checks else [])],
        },
    ]
    if snap.get("disputed"):
        sections.insert(2, _disputed_section(snap["disputed"]))
    realised = snap.get("realised")
    if realised:
        sections.append(_realised_section(realised))
    without_empty_tables(sections, empty="None in this month.")
    return {
        "title": f"Monthly statement — {period}",
        "header": f"{req['title']} · statement {period} · v{version}",
        "confidentiality": CONFIDENTIAL,
        "sha256": sha256,
        "meta": [
            ("Buyer", req["buyer"]),
            ("Provider", snap["provider"]),
            ("Request", req["title"]),
            ("Month", period),
            ("Statement version", version),
        ],
        "sections": sections,
        "signatures": [],
    }


def without_empty_tables(sections: list[dict[str, Any]], *, empty: str) -> None:
    """Drop tables with no rows; a section left with nothing says `empty` instead."""
    for section in sections:
        section["blocks"] = [b for b in section["blocks"] if b["type"] != "table" or b["rows"]]
        if not section["blocks"]:
            section["blocks"] = [_kv([("", empty)])]
