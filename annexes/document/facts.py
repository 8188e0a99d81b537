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

from questionnaire.answer_types import QuestionSpec, format_answer
from questionnaire.conflicts import NOTICE_KEY, find_conflicts, notice_home
from questionnaire.facts import binding_of, bound_answers
from questionnaire.snapshot import specs_of


def _bid_terms(snap: Mapping[str, Any]) -> Mapping[str, Any]:
    return (snap.get("bid_revision") or {}).get("terms") or {}


def _agreed(snap: Mapping[str, Any]) -> Mapping[str, Any] | None:
    return (snap.get("terms") or {}).get("values") or None


def answer_text(
    spec: QuestionSpec, snap: Mapping[str, Any], answers: Mapping[str, Any], refs: Mapping[str, str]
) -> str:
    """The questionnaire row's answer: a fact held elsewhere reads as that place states it."""
    binding = binding_of(spec, legacy=True)
    if binding is not None:
        value = bound_answers([spec], _bid_terms(snap), legacy=True).get(spec.key)
        if value is not None:
            where = f"section {refs['offer']}, {binding.label}" if "offer" in refs else "the bid"
            return f"{format_answer(spec, value)} (see {where})"
    if spec.key == NOTICE_KEY and _agreed(snap) and "terms" in refs:
        home = notice_home([], {}, _agreed(snap))
        if home is not None:
            shown = format_answer(spec, home[0])
            return f"{shown} (see section {refs['terms']}, Planned-maintenance notice)"
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
