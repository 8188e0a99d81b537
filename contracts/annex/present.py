"""Turn an annex snapshot into the document the template prints: titled sections of blocks.

The snapshot holds values; this module holds the labels and the order they read in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from bids.models import BidTerms, CapacityRequest
from contracts.annex.charts import busbw_chart_svg
from contracts.annex.labels import display as _display
from contracts.annex.labels import humanise, when
from contracts.annex.labels import label as _label
from contracts.annex.snapshot import KIND_CONTRACT

Block = dict[str, Any]
CONFIDENTIAL_BOTH = "Confidential: buyer and provider"
CONFIDENTIAL_BUYER = "Confidential: buyer only — never shared with providers"


def _kv(rows: Iterable[tuple[str, Any]], heading: str = "") -> Block:
    return {"type": "kv", "heading": heading, "rows": [(k, v) for k, v in rows]}


def _ordered(values: Mapping[str, Any], model: Any) -> list[tuple[str, Any]]:
    """Model field order, whatever order the JSON column gave back (PostgreSQL's jsonb sorts)."""
    names = [f.name for f in model._meta.get_fields() if getattr(f, "concrete", False)]
    known = [(n, values[n]) for n in names if n in values]
    return known + sorted((k, v) for k, v in values.items() if k not in names)


def _flat(value: Any, prefix: str = "") -> list[tuple[str, str]]:
    if isinstance(value, Mapping):
        rows: list[tuple[str, str]] = []
        for key, inner in sorted(value.items()):
            rows += _flat(inner, f"{prefix}.{key}" if prefix else str(key))
        return rows
    if isinstance(value, list) and value and all(isinstance(v, str | int | float) for v in value):
        return [(humanise(prefix), ", ".join(str(v) for v in value))]
    if isinstance(value, list):
        return [(humanise(prefix), f"{len(value)} item(s)")] if value else [(humanise(prefix), "—")]
    return [(humanise(prefix), when(value))]


def _request_section(snap: Mapping[str, Any]) -> dict[str, Any]:
    req = snap["request"]
    rows = [
        (_label(CapacityRequest, name), _display(CapacityRequest, name, value))
        for name, value in _ordered(req, CapacityRequest)
        if name not in {"id", "buyer", "title"}
    ]
    return {"id": "allocation", "title": "Allocation and term", "blocks": [_kv(rows)]}


def _offer_section(snap: Mapping[str, Any]) -> dict[str, Any]:
    revision = snap["bid_revision"]
    rows = [
        (_label(BidTerms, name), _display(BidTerms, name, value))
        for name, value in _ordered(revision["terms"], BidTerms)
    ]
    intro = (
        f"Bid revision {revision['number']}, submitted {when(revision['submitted_at'])} by "
        f"{revision.get('submitted_by') or '—'}. These terms are frozen; a new revision would "
        "need a new annex version."
    )
    return {
        "id": "offer",
        "title": "The awarded offer",
        "blocks": [{"type": "text", "text": intro}, _kv(rows)],
    }


def _fixture_section(snap: Mapping[str, Any]) -> dict[str, Any]:
    fixture = snap.get("fixture")
    if not fixture:
        return {
            "id": "fixture",
            "title": "Acceptance fixture",
            "blocks": [{"type": "text", "note": True, "text": "No acceptance fixture was agreed."}],
        }
    spec = fixture["spec"]
    blocks: list[Block] = [
        _kv(
            [
                ("Fixture version", fixture["version"]),
                ("Template", fixture.get("template") or "—"),
                ("Spec SHA-256", fixture["spec_sha256"]),
                ("GPU model", spec.get("gpu_model")),
            ]
        ),
        _kv(_flat(spec.get("allocation", {})), "Allocation under test"),
        _kv(_flat(spec.get("runtime", {})), "Runtime"),
        _kv(_flat(spec.get("tests", {})), "Tests"),
        _kv(_flat(spec.get("thresholds", {})), "Thresholds"),
        _kv(
            [
                ("Required evidence", ", ".join(spec.get("required_evidence", [])) or "—"),
                *_flat(spec.get("failure_record", {}), "failure_record"),
            ],
            "Evidence and failure records",
        ),
    ]
    overrides = spec.get("overrides") or []
    if overrides:
        blocks.append(
            {
                "type": "table",
                "heading": "Threshold overrides",
                "head": ["Field", "Library default", "Agreed value", "Reason", "By", "At"],
                "rows": [
                    [
                        o.get("field"),
                        o.get("default"),
                        o.get("value"),
                        o.get("reason"),
                        o.get("by"),
                        when(o.get("at")),
                    ]
                    for o in overrides
                ],
            }
        )
    files = (fixture.get("manifest") or {}).get("files", {})
    if files:
        blocks.append(
            {
                "type": "table",
                "heading": "Bundle manifest",
                "head": ["File", "SHA-256"],
                "rows": [[name, digest] for name, digest in sorted(files.items())],
            }
        )
    return {"id": "fixture", "title": "Acceptance fixture", "blocks": blocks}


def _terms_section(snap: Mapping[str, Any]) -> dict[str, Any]:
    terms = snap.get("terms")
    if not terms:
        return {
            "id": "terms",
            "title": "Incident handoff terms",
            "blocks": [{"type": "text", "note": True, "text": "No handoff terms were agreed."}],
        }
    from contracts.models import TermsFields

    values = terms["values"]
    rows = [
        (_label(TermsFields, k), _display(TermsFields, k, v))
        for k, v in _ordered(values, TermsFields)
    ]
    return {
        "id": "terms",
        "title": "Incident handoff terms",
        "blocks": [
            {"type": "text", "text": f"Terms revision {terms['revision']} ({terms['sha256']})."},
            _kv(rows),
        ],
    }


def _questionnaire_section(snap: Mapping[str, Any]) -> dict[str, Any]:
    data = snap.get("questionnaire") or {}
    questions = data.get("questions") or []
    if not questions:
        return {
            "id": "questionnaire",
            "title": "Incident responsibilities (questionnaire)",
            "blocks": [
                {"type": "text", "note": True, "text": "The bid answered no questionnaire."}
            ],
        }
    from questionnaire.answer_types import QuestionSpec, format_answer

    answers = data.get("answers", {})
    by_section: dict[str, list[list[str]]] = {}
    for raw in sorted(questions, key=lambda q: q.get("order", 0)):
        spec = QuestionSpec.from_dict(raw)
        by_section.setdefault(spec.section, []).append(
            [spec.text, format_answer(spec, answers.get(spec.key))]
        )
    blocks: list[Block] = [
        {"type": "table", "heading": section, "head": ["Question", "Answer"], "rows": rows}
        for section, rows in by_section.items()
    ]
    return {
        "id": "questionnaire",
        "title": "Incident responsibilities (questionnaire)",
        "blocks": blocks,
    }


def _acknowledgement_section(snap: Mapping[str, Any]) -> dict[str, Any]:
    ack = snap.get("acknowledgement")
    if not ack:
        text = "The provider has not acknowledged the fixture and terms."
        return {"id": "ack", "title": "Acknowledgement", "blocks": [{"type": "text", "text": text}]}
    blocks: list[Block] = [
        _kv(
            [
                ("Answer", humanise(ack["status"])),
                ("Fixture version", ack.get("fixture_version") or "—"),
                ("Terms revision", ack.get("terms_revision") or "—"),
                ("When", when(ack.get("at"))),
            ]
        )
    ]
    if ack.get("exceptions"):
        blocks.append(
            {
                "type": "table",
                "heading": "Exceptions",
                "head": ["#", "Concerns", "Exception"],
                "rows": [
                    [i, e.get("field") or "—", e.get("text", "")]
                    for i, e in enumerate(ack["exceptions"], start=1)
                ],
            }
        )
    return {"id": "ack", "title": "Acknowledgement and exceptions", "blocks": blocks}


def _baseline_section(snap: Mapping[str, Any]) -> dict[str, Any] | None:
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
            blocks += _baseline_nccl_blocks(nccl)
        versions = baseline.get("versions") or {}
        if versions:
            blocks.append(_kv(_flat(versions, "versions"), "Versions"))
    return {"id": "baseline", "title": "Hand-over baseline", "blocks": blocks}


def _baseline_nccl_blocks(nccl: list[dict[str, Any]]) -> list[Block]:
    """Whole-allocation runs in full; node and node-subset runs as one compact matrix."""
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
    svg = busbw_chart_svg(series)
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


def contract_document(snap: Mapping[str, Any], *, sha256: str, version: int) -> dict[str, Any]:
    req = snap["request"]
    sections = [
        _request_section(snap),
        _offer_section(snap),
        _fixture_section(snap),
        _terms_section(snap),
        _questionnaire_section(snap),
        _acknowledgement_section(snap),
    ]
    baseline = _baseline_section(snap)
    if baseline:
        sections.append(baseline)
    revision = snap["bid_revision"]["number"]
    return {
        "title": "Contract annex — GPU capacity, acceptance and incident handoff",
        "header": f"{req['title']} · bid revision {revision} · annex v{version}",
        "confidentiality": CONFIDENTIAL_BOTH,
        "sha256": sha256,
        "meta": [
            ("Buyer", req["buyer"]),
            ("Provider", snap["provider"]),
            ("Request", req["title"]),
            ("Bid revision", revision),
            ("Annex version", version),
        ],
        "sections": sections,
        "signatures": [req["buyer"], snap["provider"]],
    }


def _weights_text(snap: Mapping[str, Any]) -> str:
    from bids.comparison import CRITERION_LABELS
    from bids.scoring import CRITERIA

    weights = snap.get("weights") or {}
    return "weights " + ", ".join(
        f"{CRITERION_LABELS.get(n, n)} {float(weights.get(n, 0)):g}" for n in CRITERIA
    )


def comparison_document(snap: Mapping[str, Any], *, sha256: str, version: int) -> dict[str, Any]:
    req = snap["request"]
    bids = snap["bids"]
    ranking = {
        "type": "table",
        "head": ["Bid", "Revision", "Rank", "Total (0–100)", "Disqualified because"],
        "rows": [
            [
                b["name"],
                b["revision"],
                b["rank"] or "—",
                b["total"],
                "; ".join(b["disqualifications"]) or "—",
            ]
            for b in bids
        ],
    }
    rationale_rows = [
        [b["name"], humanise(c["name"]), c["score"], c["rationale"]]
        for b in bids
        for c in b["criteria"]
    ]
    sensitivity = snap.get("sensitivity") or {}
    sections = [
        {
            "id": "ranking",
            "title": "Ranking",
            "blocks": [
                {
                    "type": "text",
                    "text": f"Scored {snap.get('scored_at')}; {_weights_text(snap)}.",
                },
                ranking,
            ],
        },
        {
            "id": "rationale",
            "title": "Why each bid scored as it did",
            "blocks": [
                {
                    "type": "table",
                    "head": ["Bid", "Criterion", "Score", "Rationale"],
                    "rows": rationale_rows,
                }
            ],
        },
        {
            "id": "matrix",
            "title": "Side-by-side matrix",
            "blocks": [
                {
                    "type": "table",
                    "heading": group["title"],
                    "head": ["", *[b["name"] for b in bids]],
                    "rows": [[row["label"], *row["cells"]] for row in group["rows"]],
                }
                for group in snap.get("matrix", [])
            ],
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
    return {
        "title": "Bid comparison summary",
        "header": f"{req['title']} · comparison · summary v{version}",
        "confidentiality": CONFIDENTIAL_BUYER,
        "sha256": sha256,
        "meta": [("Buyer", req["buyer"]), ("Request", req["title"]), ("Version", version)],
        "sections": sections,
        "signatures": [],
    }


def document_for(snap: Mapping[str, Any], *, sha256: str, version: int) -> dict[str, Any]:
    if snap.get("kind") == KIND_CONTRACT:
        return contract_document(snap, sha256=sha256, version=version)
    return comparison_document(snap, sha256=sha256, version=version)
