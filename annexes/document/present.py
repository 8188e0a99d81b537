"""Turn an annex snapshot into the document the template prints: titled sections of blocks.

The snapshot holds values; this module holds the labels and the order they read in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from annexes.document.attachments import attachment_blocks
from annexes.document.baseline import baseline_section
from annexes.document.blocks import CONFIDENTIAL_BOTH, Block
from annexes.document.blocks import kv as _kv
from annexes.document.columns import column_widths
from annexes.document.comparison_doc import comparison_document
from annexes.document.facts import answer_text, snapshot_conflicts
from annexes.document.labels import display as _display
from annexes.document.labels import flat, humanise, spec_listing, when
from annexes.document.labels import label as _label
from annexes.document.outcome import KIND_OUTCOME
from annexes.document.outcome_doc import outcome_document
from annexes.document.snapshot import KIND_CONTRACT, LOT_TERMS
from annexes.document.statement import KIND_STATEMENT
from annexes.document.statement_doc import statement_document
from annexes.document.value import value_rows
from bids.models import BidTerms, CapacityRequest
from bids.models.offer_kinds import offer_kind_from
from bids.models.requests import PURCHASING_FIELDS
from contracts.models import TermsFields
from engine.formatting import duration
from engine.lots import LotInputError, describe_bundle, read_bundles, read_offers
from questionnaire.answer_types import QuestionSpec, format_answer

# The parts of a fixture spec printed verbatim (the thresholds get a labelled table).
SPEC_LISTED = ("allocation", "runtime", "tests", "required_evidence", "failure_record")


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
        if name not in {"id", "buyer", "title", *PURCHASING_FIELDS}
    ]
    blocks: list[Block] = [_kv(rows)]
    for addendum in snap.get("addenda") or []:  # told to every invitee while bidding was open
        blocks.append(
            {
                "type": "text",
                "text": f"Addendum {addendum['number']}, published "
                f"{when(addendum['published_at'])}: {addendum['title']}. {addendum['text']}",
            }
        )
    return {"id": "allocation", "title": "Allocation and term", "blocks": blocks}


def _lot_rows(terms: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The offers per lot and the bundle conditions in words (a request with lots only)."""
    try:
        offers = read_offers(terms.get("lot_offers") or [])
        bundles = read_bundles(terms.get("bundles") or [])
    except LotInputError:  # only checked rows are stored
        return []
    rows = [
        (f"Lot {o.lot}", f"{o.nodes} nodes at ${o.price_per_gpu_hour} per GPU-hour") for o in offers
    ]
    return rows + [(f"Bundle {i}", describe_bundle(b)) for i, b in enumerate(bundles, start=1)]


def _offer_kind_rows(terms: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A MIG or time-sliced offer's slice on the whole-device scale (whole devices need none)."""
    price = terms.get("price_per_gpu_hour")
    kind = offer_kind_from(
        kind=terms.get("isolation_class") or "whole_device",
        profile=terms.get("mig_profile") or "",
        replicas=terms.get("time_slice_replicas"),
        price=Decimal(str(price)) if price not in (None, "") else None,
    )
    if kind is None or kind.fraction == 1:
        return []
    rows = [
        ("Offer", kind.description),
        ("Isolation", kind.isolation),
    ]
    if kind.price_per_device_hour is not None:
        rows += [
            ("Price per slice-hour", f"${kind.price_per_slice_hour}"),
            ("Price per whole-device-equivalent hour", f"${kind.price_per_device_hour}"),
        ]
    return rows


def _offer_section(snap: Mapping[str, Any]) -> dict[str, Any]:
    revision = snap["bid_revision"]
    rows = [
        (_label(BidTerms, name), _display(BidTerms, name, value))
        for name, value in _ordered(revision["terms"], BidTerms)
        if name not in LOT_TERMS
    ]
    rows += _lot_rows(revision["terms"])
    rows += _offer_kind_rows(revision["terms"])
    intro = (
        f"Bid revision {revision['number']}, submitted {when(revision['submitted_at'])} by "
        f"{revision.get('submitted_by') or '—'}. These terms are frozen; a new revision would "
        "need a new annex version."
    )
    blocks: list[Block] = [{"type": "text", "text": intro}]
    if snap.get("award_justification"):  # awarded against the scores: the buyer's reason
        blocks.append({"type": "text", "text": f"Award: {snap['award_justification']}"})
    value = value_rows(snap)
    if value is not None:
        blocks.append(_kv(value, heading="Total contract value"))
    files = attachment_blocks(snap)
    return {"id": "offer", "title": "The awarded offer", "blocks": [*blocks, _kv(rows), *files]}


def _whose(part: Mapping[str, Any]) -> str:
    """A lot's own fixture or terms, or the request's (which a lot without its own shares)."""
    return f"lot {part['lot']}'s own" if part.get("lot") else "the request"


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
                ("Fixture of", _whose(fixture)),
                ("Template", fixture.get("template") or "—"),
                ("Spec SHA-256", fixture["spec_sha256"]),
                ("GPU model", spec.get("gpu_model")),
            ]
        ),
        _kv(flat(spec.get("thresholds", {})), "Thresholds"),
        {
            "type": "code",
            "heading": "Allocation, runtime, tests and evidence",
            "intro": "Printed as the fixture specification states them, one setting a line, so "
            "that nothing is lost in relabelling.",
            "text": spec_listing(spec, SPEC_LISTED),
        },
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
        rows = sorted(files.items())
        blocks.append(
            {
                "type": "code",
                "heading": "Bundle manifest",
                "intro": "In the format of sha256sum: run `sha256sum -c` on this list inside the "
                "unpacked bundle to check every file.",
                "text": "\n".join(f"{digest}  {name}" for name, digest in rows),
            }
        )
    return {"id": "fixture", "title": "Acceptance fixture", "blocks": blocks}


_SEVERITY_KEY = re.compile(r"^(s\d)_(response_minutes|restore_minutes|escalation)$")


def _terms_section(snap: Mapping[str, Any]) -> dict[str, Any]:
    terms = snap.get("terms")
    if not terms:
        return {
            "id": "terms",
            "title": "Incident handoff terms",
            "blocks": [{"type": "text", "note": True, "text": "No handoff terms were agreed."}],
        }

    values = dict(terms["values"])
    ack = snap.get("acknowledgement") or {}
    if ack.get("provider_owner_name"):
        # The terms leave the provider's owner to the provider; its acknowledgement names them.
        values["provider_owner_name"] = ack["provider_owner_name"]
        values["provider_owner_contact"] = ack.get("provider_owner_contact") or ""
    clocks = _severity_clocks(values)
    rows = [
        (_label(TermsFields, k), _display(TermsFields, k, v))
        for k, v in _ordered(values, TermsFields)
        if not (clocks and _SEVERITY_KEY.match(k))
    ]
    blocks: list[Block] = [
        {
            "type": "text",
            "text": f"Terms revision {terms['revision']} of {_whose(terms)} ({terms['sha256']}).",
        }
    ]
    if clocks:
        blocks.append(clocks)
    blocks.append(_kv(rows, "Owners, evidence and recovery" if clocks else ""))
    return {"id": "terms", "title": "Incident handoff terms", "blocks": blocks}


def _severity_clocks(values: Mapping[str, Any]) -> Block | None:
    """The clocks per severity as one table, a severity a row, as people compare them."""
    by_severity: dict[str, dict[str, Any]] = {}
    for key, value in values.items():
        if match := _SEVERITY_KEY.match(key):
            by_severity.setdefault(match[1], {})[match[2]] = value
    if not by_severity:
        return None
    return {
        "type": "table",
        "heading": "Clocks per severity",
        "head": ["Severity", "First response", "Restore", "If not restored"],
        "rows": [
            [
                severity.upper(),
                duration(cells.get("response_minutes")),
                duration(cells.get("restore_minutes")),
                cells.get("escalation") or "—",
            ]
            for severity, cells in sorted(by_severity.items())
        ],
    }


def _questionnaire_section(snap: Mapping[str, Any], refs: Mapping[str, str]) -> dict[str, Any]:
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

    answers = data.get("answers", {})
    specs = [
        QuestionSpec.from_dict(raw) for raw in sorted(questions, key=lambda q: q.get("order", 0))
    ]
    blocks: list[Block] = _matrix_blocks([s for s in specs if s.step], answers, format_answer)
    by_section: dict[str, list[list[str]]] = {}
    for spec in specs:
        if not spec.step:
            by_section.setdefault(spec.section, []).append(
                [spec.text, answer_text(spec, snap, answers, refs)]
            )
    if by_section:
        # One table with a row naming each topic: the answers read as one list, and the PDF
        # lays out one table instead of a table a topic.
        blocks.append(
            {
                "type": "table",
                "heading": "Operations",
                "head": ["Question", "Answer"],
                "groups": list(by_section.items()),
            }
        )
    return {
        "id": "questionnaire",
        "title": "Incident responsibilities (questionnaire)",
        "blocks": blocks,
    }


def _matrix_blocks(specs: list[Any], answers: Mapping[str, Any], fmt: Any) -> list[Block]:
    """The responsibility matrix as a matrix: one row per incident step with its owner, the
    clocks per severity and the evidence handed over."""
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
    head = ["Incident step", "Owner", *severities]
    if any("evidence" in cells for cells in steps.values()):
        # What each owner hands over sits on the step's own row, beside who owns it.
        head.append("Evidence handed over")
        for row, cells in zip(rows, steps.values(), strict=True):
            row.append(cells.get("evidence", "—"))
    return [
        {
            "type": "table",
            "heading": "Responsibility matrix (clocks: first response / restore)",
            "head": head,
            "rows": rows,
        }
    ]


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


def _lot_section(lot: Mapping[str, Any]) -> dict[str, Any]:
    """A split award's reservation: this annex covers one lot, the nodes won and their price."""
    rows = [
        ("Lot", f"{lot['number']}: {lot['name']}"),
        ("Nodes reserved", f"{lot['nodes']} × {lot['gpus_per_node']} GPUs"),
        ("Region", lot.get("region") or "any of the request's"),
        ("Term", f"{lot['reservation_start']} to {lot['reservation_end']}"),
        ("Price per GPU-hour (USD)", lot.get("price_per_gpu_hour") or "—"),
    ]
    blocks: list[Block] = [
        {
            "type": "text",
            "text": "The request was awarded in lots; this annex covers the one lot below and "
            "overrides the request's allocation and term for it.",
        },
        _kv(rows),
    ]
    return {"id": "lot", "title": "The lot awarded", "blocks": blocks}


def contract_document(snap: Mapping[str, Any], *, sha256: str, version: int) -> dict[str, Any]:
    req = snap["request"]
    sections = [_request_section(snap), _offer_section(snap), _fixture_section(snap)]
    if snap.get("lot"):
        sections.insert(1, _lot_section(snap["lot"]))
    sections.append(_terms_section(snap))
    refs = {section["id"]: str(i) for i, section in enumerate(sections, start=1)}
    sections += [_questionnaire_section(snap, refs), _acknowledgement_section(snap)]
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
            *(
                [("Lot", f"{snap['lot']['number']}: {snap['lot']['name']}")]
                if snap.get("lot")
                else []
            ),
            ("Annex version", version),
            *_purchasing_meta(req),
        ],
        "sections": sections,
        "signatures": [req["buyer"], snap["provider"]],
        "conflicts": snapshot_conflicts(snap),  # flagged in the preview, never printed
    }


def _purchasing_meta(req: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The buyer's purchasing references the snapshot holds, where the request states them."""
    return [
        (_label(CapacityRequest, name), _display(CapacityRequest, name, req[name]))
        for name in PURCHASING_FIELDS
        if name in req
    ]


def document_for(snap: Mapping[str, Any], *, sha256: str, version: int) -> dict[str, Any]:
    if snap.get("kind") == KIND_STATEMENT:
        document = statement_document(snap, sha256=sha256, version=version)
    elif snap.get("kind") == KIND_OUTCOME:
        document = outcome_document(snap, sha256=sha256, version=version)
    elif snap.get("kind") == KIND_CONTRACT:
        document = contract_document(snap, sha256=sha256, version=version)
    else:
        document = comparison_document(snap, sha256=sha256, version=version)
    return _numbered(document)


def _numbered(document: dict[str, Any]) -> dict[str, Any]:
    """Section and sub-section numbers, written into the text (cheaper than CSS counters), and
    each table's column widths (cheaper than letting WeasyPrint measure every cell)."""
    for i, section in enumerate(document["sections"], start=1):
        section["number"] = str(i)
        headed = (block for block in section["blocks"] if block.get("heading"))
        for j, block in enumerate(headed, start=1):
            block["number"] = f"{i}.{j}"
        for block in section["blocks"]:
            if block["type"] == "table":
                rows = block.get("rows") or [r for _, group in block["groups"] for r in group]
                block["widths"] = column_widths(block["head"], rows)
    return document
