"""The frozen form of a bid's answers, and everything read back from it (pure Python).

A revision's snapshot carries its questions as well as its answers, so it can be shown,
diffed and scored later even after the buyer edits the question set.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from questionnaire.answer_types import (
    DURATION,
    QuestionSpec,
    deal_breaker_failure,
    format_answer,
)
from questionnaire.defaults import SEVERITIES

SCHEMA = "clusterbid.questionnaire/1"
EVIDENCE_KEY = "diagnostics.shared"
TRANSPORT_KEY = "path.transport"


def missing_required(specs: Iterable[QuestionSpec], answers: Mapping[str, Any]) -> list[str]:
    """'Section › Question' for every required question without an answer."""
    return [s.label for s in specs if s.must_answer and answers.get(s.key) is None]


def deal_breaker_failures(specs: Iterable[QuestionSpec], answers: Mapping[str, Any]) -> list[str]:
    reasons = []
    for spec in specs:
        if spec.rule and answers.get(spec.key) is not None:
            reason = deal_breaker_failure(spec, answers[spec.key])
            if reason:
                reasons.append(reason)
    return reasons


def response_minutes(specs: Iterable[QuestionSpec], answers: Mapping[str, Any]) -> dict[str, float]:
    """Per severity, the first-response clock of the earliest matrix step that gives one."""
    return {sev: value for sev, (value, _) in matrix_clocks(specs, answers)["response"].items()}


def matrix_clocks(
    specs: Iterable[QuestionSpec], answers: Mapping[str, Any]
) -> dict[str, dict[str, tuple[float, str]]]:
    """Per clock and severity, the scored minutes and the matrix row that gave them.

    First response: the earliest step that answers it (when someone first acts). Restore: the
    slowest step that answers it (the capacity is back only when every step is done).
    """
    found: dict[str, dict[str, tuple[float, str]]] = {"response": {}, "restore": {}}
    for spec in sorted(specs, key=lambda s: s.order):
        sev, _, clock = spec.column.partition(".")
        value = answers.get(spec.key)
        if sev not in SEVERITIES or clock not in found or not value:
            continue
        row = spec.text.partition(":")[0].strip() or spec.key
        current = found[clock].get(sev)
        if current is None or (clock == "restore" and float(value) > current[0]):
            found[clock][sev] = (float(value), row)
    return found


def misses_target(spec: QuestionSpec, value: Any, targets: Mapping[str, Any]) -> bool:
    """True when a matrix clock is slower than the buyer's target for its severity and clock."""
    if spec.answer_type != DURATION or value is None:
        return False
    sev, _, clock = spec.column.partition(".")
    target = targets.get(clock, {}).get(sev)
    return target is not None and float(value) > float(target)


def compare_path(*, required: str, source: str, offered: str | None) -> dict[str, Any]:
    """What the fixture needs vs what the provider's own acceptance run covered."""
    if not required:
        message = "The request names no NCCL transport to compare with."
        mismatch = False
    elif not offered:
        message = f"The fixture needs {required}; the bid does not say what its run covers."
        mismatch = False
    else:
        mismatch = offered.lower() != required.lower()
        message = (
            f"Mismatch: the fixture needs {required} ({source}), "
            f"the provider's acceptance run covers {offered}."
            if mismatch
            else f"The provider's acceptance run covers {offered}, as the fixture needs."
        )
    return {
        "required": required,
        "required_source": source,
        "offered": offered or "",
        "mismatch": mismatch,
        "message": message,
    }


def build_snapshot(
    *,
    question_set: Mapping[str, Any],
    specs: list[QuestionSpec],
    answers: Mapping[str, Any],
    targets: Mapping[str, Any],
    required_transport: tuple[str, str],
) -> dict[str, Any]:
    kept = {s.key: answers[s.key] for s in specs if answers.get(s.key) is not None}
    transport = kept.get(TRANSPORT_KEY)
    return {
        "schema": SCHEMA,
        "question_set": dict(question_set),
        "questions": [s.to_dict() for s in specs],
        "answers": kept,
        "targets": {k: dict(v) if isinstance(v, Mapping) else v for k, v in targets.items()},
        "execution_path": compare_path(
            required=required_transport[0],
            source=required_transport[1],
            offered=transport if isinstance(transport, str) else None,
        ),
        "deal_breaker_failures": deal_breaker_failures(specs, kept),
        "missing_required": missing_required(specs, kept),
    }


def specs_of(snapshot: Mapping[str, Any]) -> list[QuestionSpec]:
    return [QuestionSpec.from_dict(q) for q in snapshot.get("questions", [])]


@dataclass(frozen=True)
class ScoringAnswers:
    """What scoring reads from one revision's frozen answers (fields named as in BidOffer)."""

    response_minutes: dict[str, float] | None
    deal_breaker_failures: tuple[str, ...]
    missing_required_answers: tuple[str, ...]
    evidence_shared: bool
    execution_path_mismatch: str | None = None
    restore_minutes: dict[str, float] | None = None
    clock_rows: dict[str, str] | None = None
    answered: bool = True


NO_QUESTIONNAIRE = ScoringAnswers(None, (), (), False, None, answered=False)


def scoring_answers(snapshot: Mapping[str, Any] | None) -> ScoringAnswers:
    if not snapshot or snapshot.get("schema") != SCHEMA:
        return NO_QUESTIONNAIRE
    specs = specs_of(snapshot)
    answers = snapshot.get("answers", {})
    evidence = answers.get(EVIDENCE_KEY)
    path = snapshot.get("execution_path") or {}
    clocks = matrix_clocks(specs, answers)
    return ScoringAnswers(
        response_minutes={s: v for s, (v, _) in clocks["response"].items()} or None,
        restore_minutes={s: v for s, (v, _) in clocks["restore"].items()} or None,
        clock_rows={f"{s}.{c}": row for c in clocks for s, (_, row) in clocks[c].items()} or None,
        deal_breaker_failures=tuple(deal_breaker_failures(specs, answers)),
        missing_required_answers=tuple(missing_required(specs, answers)),
        evidence_shared=isinstance(evidence, dict) and evidence.get("value") == "yes",
        execution_path_mismatch=path.get("message") if path.get("mismatch") else None,
    )


@dataclass(frozen=True)
class AnswerChange:
    key: str
    label: str
    old: str
    new: str
    kind: str  # "changed" | "added" | "removed"


def diff_snapshots(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[AnswerChange]:
    """Which answers changed between two frozen snapshots, in the newer set's order."""
    old_specs = {s.key: s for s in specs_of(old)}
    new_specs = {s.key: s for s in specs_of(new)}
    old_answers, new_answers = old.get("answers", {}), new.get("answers", {})
    changes = []
    ordered = list(new_specs) + [k for k in old_specs if k not in new_specs]
    for key in ordered:
        spec = new_specs.get(key) or old_specs[key]
        before, after = old_answers.get(key), new_answers.get(key)
        if before == after:
            continue
        kind = "added" if before is None else "removed" if after is None else "changed"
        old_text = format_answer(old_specs.get(key, spec), before)
        changes.append(AnswerChange(key, spec.label, old_text, format_answer(spec, after), kind))
    return changes
