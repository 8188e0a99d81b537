"""The one validator of a bid's questionnaire answers (pure Python).

The answers page, the JSON import, the API and the submit all call `check_answers`; its errors
are keyed by question key. Only their presentation differs: the page puts them on the field,
the API names them `answers.<question key>`, the import adds the file's line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from questionnaire.answer_types import AnswerError, QuestionSpec, clean_answer, format_answer


@dataclass(frozen=True)
class AnswerCheck:
    values: dict[str, Any]  # canonical values of the valid, non-blank answers
    errors: dict[str, list[str]]  # question key → what is wrong with its answer
    unknown: list[str]  # keys given that the questionnaire does not ask, sorted


def unknown_question(key: str) -> str:
    return f"This request's questionnaire asks no question '{key}'."


def check_answers(
    specs: Iterable[QuestionSpec],
    raw: Mapping[str, Any],
    *,
    skip_unknown: bool = False,
    for_submit: bool = False,
    bound: Mapping[str, Any] | None = None,
    bound_labels: Mapping[str, str] | None = None,
) -> AnswerCheck:
    """Clean every answer in `raw` against `specs`.

    A key not asked is an error (a typo to report, not an answer to drop) unless `skip_unknown`:
    a file exported from another request may hold questions this one does not ask.
    `for_submit` re-checks stored answers (a buyer's later edit can invalidate one) and requires
    an answer to every required or deal-breaker question.

    `bound` (question key → the bid field's answer, `facts.bound_answers`) answers the bound
    questions: a value given for one is refused when it differs (the bid field is the one home;
    `bound_labels` names it), and a stored one is ignored at submit or when `skip_unknown`."""
    specs = list(specs)
    bound = bound or {}
    values: dict[str, Any] = {}
    errors: dict[str, list[str]] = {}
    for spec in specs:
        if spec.key in bound:
            values[spec.key] = bound[spec.key]
            if not (for_submit or skip_unknown) and _differs(spec, raw.get(spec.key), bound):
                field = (bound_labels or {}).get(spec.key, "a bid field")
                errors[spec.key] = [
                    f"This answer is set on the bid ({field} = "
                    f"{format_answer(spec, bound[spec.key])}); change it on the bid."
                ]
            continue
        try:
            value = clean_answer(spec, raw.get(spec.key))
        except AnswerError as exc:
            message = f"Answer '{spec.key}' is no longer valid: {exc}" if for_submit else str(exc)
            errors[spec.key] = [message]
            continue
        if value is not None:
            values[spec.key] = value
        elif for_submit and spec.must_answer:
            errors[spec.key] = [f"Required answer missing: {spec.label}"]
    known = {spec.key for spec in specs}
    unknown = sorted(key for key in raw if key not in known)
    if not skip_unknown:
        errors.update({key: [unknown_question(key)] for key in unknown})
    return AnswerCheck(values=values, errors=errors, unknown=unknown)


def _differs(spec: QuestionSpec, given: Any, bound: Mapping[str, Any]) -> bool:
    """A non-blank answer given for a bound question that is not the bid field's value."""
    try:
        value = clean_answer(spec, given)
    except AnswerError:
        return True
    if value is None:
        return False
    expected = bound[spec.key]
    if isinstance(value, dict) and isinstance(expected, dict):  # yes/no: the comment is free
        return value.get("value") != expected.get("value")
    return bool(value != expected)
