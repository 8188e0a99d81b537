"""One value per fact in the contract annex.

A fact the bid form and the questionnaire both state is printed once, where it lives (the bid's
terms, or the handoff terms for the maintenance notice); the questionnaire's row shows that same
value and names the section. Snapshots frozen before questions were bound are read with the
default bindings, so an older annex shown again prints one value too (its checksum, which is of
the snapshot, does not change). Where the snapshot states two values, the preview says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annexes.document.labels import display, label
from bids.models import BidTerms
from contracts.models import TermsFields
from questionnaire.answer_types import QuestionSpec, format_answer
from questionnaire.conflicts import NOTICE_KEY, find_conflicts
from questionnaire.facts import binding_of
from questionnaire.snapshot import specs_of

NOTICE_FIELD = "maintenance_notice_hours"


def _bid_terms(snap: Mapping[str, Any]) -> Mapping[str, Any]:
    return (snap.get("bid_revision") or {}).get("terms") or {}


def _agreed(snap: Mapping[str, Any]) -> Mapping[str, Any] | None:
    return (snap.get("terms") or {}).get("values") or None


def answer_text(
    spec: QuestionSpec, snap: Mapping[str, Any], answers: Mapping[str, Any], refs: Mapping[str, str]
) -> str:
    """The questionnaire row's answer: a fact held elsewhere reads exactly as that section
    prints it, with the section and the label to find it by."""
    binding = binding_of(spec, legacy=True)
    terms = _bid_terms(snap)
    if binding is not None and terms.get(binding.field) is not None and "offer" in refs:
        shown = display(BidTerms, binding.field, terms[binding.field])
        where = label(BidTerms, binding.field)
        return f"{shown} (see section {refs['offer']}, {where})"
    agreed = _agreed(snap)
    notice = NOTICE_FIELD
    if spec.key == NOTICE_KEY and agreed and agreed.get(notice) is not None and "terms" in refs:
        shown = display(TermsFields, notice, agreed[notice])
        return f"{shown} (see section {refs['terms']}, {label(TermsFields, notice)})"
    return format_answer(spec, answers.get(spec.key))


def snapshot_conflicts(snap: Mapping[str, Any]) -> list[str]:
    """What the snapshot states twice with two values, as the annex preview flags it."""
    questionnaire = snap.get("questionnaire") or {}
    return [
        c.message
        for c in find_conflicts(
            terms=_bid_terms(snap),
            specs=specs_of(questionnaire),
            answers=questionnaire.get("answers") or {},
            agreed=_agreed(snap),
            legacy=True,
        )
    ]
