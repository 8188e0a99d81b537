"""Turn an annex snapshot into the document the template prints: titled sections of blocks.

The snapshot holds values; this module holds the labels and the order they read in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from bids.models import BidTerms, CapacityRequest
from contracts.annex.baseline import baseline_section
from contracts.annex.labels import display as _display
from contracts.annex.labels import flat, humanise, when
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
        _kv(flat(spec.get("allocation", {})), "Allocation under test"),
        _kv(flat(spec.get("runtime", {})), "Runtime"),
        _kv(flat(spec.get("tests", {})), "Tests"),
        _kv(flat(spec.get("thresholds", {})), "Thresholds"),
        _kv(
            [
                ("Required evidence", ", ".join(spec.get("required_evidence", [])) or "—"),
                *flat(spec.get("failure_record", {}), "failure_record"),
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
    specs = [
        QuestionSpec.from_dict(raw) for raw in sorted(questions, key=lambda q: q.get("order", 0))
    ]
    blocks: list[Block] = _matrix_blocks([s for s in specs if s.step], answers, format_answer)
    by_section: dict[str, list[list[str]]] = {}
    for spec in specs:
        if not spec.step:
            by_section.setdefault(spec.section, []).append(
                [spec.text, format_answer(spec, answers.get(spec.key))]
            )
    blocks += [
        {"type": "table", "heading": section, "head": ["Question", "Answer"], "rows": rows}
        for section, rows in by_section.items()
    ]
    return {
        "id": "questionnaire",
        "title": "Incident responsibilities (questionnaire)",
        "blocks": blocks,
    }


def _matrix_blocks(specs: list[Any], answers: Mapping[str, Any], fmt: Any) -> list[Block]:
    """The responsibility matrix as a matrix: one row per incident step, clocks per severity."""
    if not specs:
        return []
    steps: dict[str, dict[str, str]] = {}
    labels: dict[str, str] = {}
    severities: list[str] = []
    for spec in specs:
        labels.setdefault(spec.step, spec.text.split(":")[0])
        steps.setdefault(spec.step, {})[spec.column] = fmt(spec, answers.get(spec.key))
        severity = spec.column.partition(".")[0]
        if "." in spec.column and severity not in severities:
            severities.append(severity)
    rows = [
        [
            labels[step],
            cells.get("owner", "—"),
            *[
                f"{cells.get(f'{sev}.response', '—')} / {cells.get(f'{sev}.restore', '—')}"
                for sev in severities
            ],
        ]
        for step, cells in steps.items()
    ]
    evidence = [
        [labels[step], cells["evidence"]] for step, cells in steps.items() if "evidence" in cells
    ]
    blocks: list[Block] = [
        {
            "type": "table",
            "heading": "Responsibility matrix (first response / restore)",
            "head": ["Incident step", "Owner", *severities],
            "rows": rows,
        }
    ]
    if evidence:
        blocks.append(
            {
                "type": "table",
                "heading": "Evidence each owner hands over",
                "head": ["Incident step", "Evidence"],
                "rows": evidence,
            }
        )
    return blocks


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
    baseline = baseline_section(snap)
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
        document = contract_document(snap, sha256=sha256, version=version)
    else:
        document = comparison_document(snap, sha256=sha256, version=version)
    return _numbered(document)


def _numbered(document: dict[str, Any]) -> dict[str, Any]:
    """Section and sub-section numbers, written into the text (cheaper than CSS counters)."""
    for i, section in enumerate(document["sections"], start=1):
        section["number"] = str(i)
        headed = (block for block in section["blocks"] if block.get("heading"))
        for j, block in enumerate(headed, start=1):
            block["number"] = f"{i}.{j}"
    return document
