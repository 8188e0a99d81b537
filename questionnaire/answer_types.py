"""Typed answers: parse what a person typed (or a JSON file held) into one canonical value.

Pure Python, no Django: the form page, the JSON import and the frozen snapshots share it.
Canonical values: duration → int minutes; enum → str; multi → sorted list[str];
yesno → {"value": "yes"|"no", "comment": str}; text → str; integer → int.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.formatting import duration

DURATION, ENUM, MULTI, YESNO, TEXT, INTEGER = (
    "duration",
    "enum",
    "multi",
    "yesno",
    "text",
    "integer",
)
ANSWER_TYPES: dict[str, str] = {
    DURATION: "Duration (minutes or hours)",
    ENUM: "One choice",
    MULTI: "Several choices",
    YESNO: "Yes / no (a 'no' needs a comment)",
    TEXT: "Text",
    INTEGER: "Whole number",
}

# Deal-breaker rules: the condition an answer must meet, or the bid is disqualified.
RULE_YES, RULE_MAX, RULE_MIN, RULE_ONE_OF = "yes", "max", "min", "one_of"
RULES_FOR_TYPE: dict[str, tuple[str, ...]] = {
    DURATION: (RULE_MAX,),
    INTEGER: (RULE_MIN, RULE_MAX),
    YESNO: (RULE_YES,),
    ENUM: (RULE_ONE_OF,),
    MULTI: (),
    TEXT: (),
}

MAX_TEXT = 2000
_UNITS = {
    "m": 1,
    "min": 1,
    "mins": 1,
    "minute": 1,
    "minutes": 1,
    "h": 60,
    "hr": 60,
    "hrs": 60,
    "hour": 60,
    "hours": 60,
    "d": 1440,
    "day": 1440,
    "days": 1440,
}
_DURATION_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")


class AnswerError(ValueError):
    """One answer cannot be used; the message is for the person who typed it."""


@dataclass(frozen=True)
class QuestionSpec:
    """A question as data: what the default set declares and what a revision freezes."""

    key: str
    section: str
    text: str
    answer_type: str
    choices: tuple[tuple[str, str], ...] = ()
    required: bool = False
    rule: str = ""
    rule_value: str = ""
    help_text: str = ""
    step: str = ""
    column: str = ""
    order: int = 0
    bound_to: str = ""  # a BidTerms field that holds this answer (questionnaire.facts)
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def deal_breaker(self) -> bool:
        return bool(self.rule)

    @property
    def must_answer(self) -> bool:
        """A submit needs an answer here: the buyer marked it required, or it is a deal-breaker."""
        return self.required or self.deal_breaker

    @property
    def label(self) -> str:
        return f"{self.section} › {self.text}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "section": self.section,
            "text": self.text,
            "answer_type": self.answer_type,
            "choices": [list(c) for c in self.choices],
            "required": self.required,
            "rule": self.rule,
            "rule_value": self.rule_value,
            "help_text": self.help_text,
            "step": self.step,
            "column": self.column,
            "order": self.order,
            # Only when bound: snapshots of unbound questions keep their bytes and checksums.
            **({"bound_to": self.bound_to} if self.bound_to else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QuestionSpec:
        return cls(
            key=data["key"],
            section=data["section"],
            text=data["text"],
            answer_type=data["answer_type"],
            choices=tuple((str(v), str(lbl)) for v, lbl in data.get("choices", [])),
            required=bool(data.get("required")),
            rule=data.get("rule", ""),
            rule_value=str(data.get("rule_value", "")),
            help_text=data.get("help_text", ""),
            step=data.get("step", ""),
            column=data.get("column", ""),
            order=int(data.get("order", 0)),
            bound_to=str(data.get("bound_to", "")),
        )


def parse_duration(raw: Any, *, unit_required: bool = False) -> int:
    """'90 min', '1.5 h', '2 days' → minutes; a number, or bare digits, are minutes.

    A provider's typed answer must carry its unit (`unit_required`): '4' could mean minutes or
    hours. Stored rule values and targets are canonical minutes and stay bare."""
    if isinstance(raw, bool):
        raise AnswerError(f"{raw!r} is not a duration")
    if isinstance(raw, int | float):
        if not math.isfinite(raw) or raw < 0:
            raise AnswerError(f"{raw!r} is not a duration")
        return round(raw)
    if isinstance(raw, Mapping) and set(raw) <= {"value", "unit"} and "value" in raw:
        raw = f"{raw['value']} {raw.get('unit', 'min')}"
    if not isinstance(raw, str):
        raise AnswerError(f"{raw!r} is not a duration")
    match = _DURATION_RE.match(raw)
    if unit_required and match is not None and not match.group(2):
        raise AnswerError(f"'{raw.strip()}' needs a unit: '{raw.strip()} min' or '{raw.strip()} h'")
    unit = (match.group(2).lower() or "min") if match else ""
    if match is None or unit not in _UNITS:
        raise AnswerError(
            f"'{raw.strip()}' is not a duration (use minutes or hours, e.g. '30 min')"
        )
    return round(float(match.group(1)) * _UNITS[unit])


def _is_blank(raw: Any) -> bool:
    if raw is None:
        return True
    if isinstance(raw, str):
        return not raw.strip()
    if isinstance(raw, list | tuple):
        return not raw
    if isinstance(raw, Mapping) and "value" in raw:
        return _is_blank(raw["value"])
    return False


def clean_answer(spec: QuestionSpec, raw: Any) -> Any:
    """The canonical value for `raw`, None when blank; AnswerError says what is wrong."""
    if _is_blank(raw):
        return None
    kind = spec.answer_type
    if kind == DURATION:
        return parse_duration(raw, unit_required=True)
    if kind == INTEGER:
        return _clean_integer(raw)
    if kind == ENUM:
        return _clean_choice(spec, raw)
    if kind == MULTI:
        items = [raw] if isinstance(raw, str) else raw
        if not isinstance(items, Sequence):
            raise AnswerError(f"{raw!r} is not a list of choices")
        return sorted({_clean_choice(spec, item) for item in items})
    if kind == YESNO:
        return _clean_yesno(raw)
    if kind == TEXT:
        if not isinstance(raw, str):
            raise AnswerError(f"{raw!r} is not text")
        if len(raw) > MAX_TEXT:
            raise AnswerError(f"is {len(raw)} characters long; keep it under {MAX_TEXT}")
        return raw.strip()
    raise AnswerError(f"unknown answer type {kind!r}")


def _clean_integer(raw: Any) -> int:
    if isinstance(raw, bool):
        raise AnswerError(f"{raw!r} is not a whole number")
    if isinstance(raw, int):
        value = raw
    elif isinstance(raw, str) and re.fullmatch(r"\s*-?\d+\s*", raw):
        value = int(raw)
    else:
        shown = raw.strip() if isinstance(raw, str) else raw
        raise AnswerError(f"'{shown}' is not a whole number")
    if value < 0:
        raise AnswerError(f"{value} is negative; give zero or more")
    return value


def _clean_choice(spec: QuestionSpec, raw: Any) -> str:
    allowed = {value for value, _ in spec.choices}
    if not isinstance(raw, str) or raw.strip() not in allowed:
        raise AnswerError(f"'{raw}' is not one of: {', '.join(sorted(allowed))}")
    return raw.strip()


def _clean_yesno(raw: Any) -> dict[str, str]:
    comment = ""
    if isinstance(raw, Mapping):
        comment = raw.get("comment") or ""
        raw = raw.get("value")
        if not isinstance(comment, str):
            raise AnswerError("the comment must be text")
    if raw is True or (isinstance(raw, str) and raw.strip().lower() in ("yes", "y", "true")):
        value = "yes"
    elif raw is False or (isinstance(raw, str) and raw.strip().lower() in ("no", "n", "false")):
        value = "no"
    else:
        raise AnswerError(f"'{raw}' is not yes or no")
    if value == "no" and not comment.strip():
        raise AnswerError("a 'no' needs a comment saying what you offer instead")
    return {"value": value, "comment": comment.strip()}


def format_answer(spec: QuestionSpec, value: Any) -> str:
    """How a canonical value reads on a page or in a diff."""
    if value is None:
        return "—"
    labels = dict(spec.choices)
    kind = spec.answer_type
    if kind == DURATION:
        return duration(int(value))
    if kind == ENUM:
        return labels.get(value, str(value))
    if kind == MULTI:
        return ", ".join(labels.get(v, v) for v in value) or "—"
    if kind == YESNO:
        word = "Yes" if value.get("value") == "yes" else "No"
        return f"{word} — {value['comment']}" if value.get("comment") else word
    return str(value)


def describe_rule(spec: QuestionSpec) -> str:
    """The disqualifying condition in words, e.g. 'must be yes' or 'must be ≤ 60 min'."""
    if spec.rule == RULE_YES:
        return "must be yes"
    if spec.rule == RULE_MAX and spec.answer_type == DURATION:
        return f"must be ≤ {duration(int(spec.rule_value or 0))}"
    if spec.rule == RULE_MAX:
        return f"must be ≤ {spec.rule_value}"
    if spec.rule == RULE_MIN:
        return f"must be ≥ {spec.rule_value}"
    if spec.rule == RULE_ONE_OF:
        labels = dict(spec.choices)
        allowed = [labels.get(v, v) for v in spec.rule_value.split("|") if v]
        return "must be " + " or ".join(allowed)
    return ""


def deal_breaker_failure(spec: QuestionSpec, value: Any) -> str | None:
    """The disqualification reason when `value` breaks the question's rule, else None."""
    if not spec.rule:
        return None
    if value is None:
        return f"{spec.label}: not answered ({describe_rule(spec)})"
    broken = False
    if spec.rule == RULE_YES:
        broken = value.get("value") != "yes"
    elif spec.rule == RULE_MAX:
        broken = float(value) > float(spec.rule_value or 0)
    elif spec.rule == RULE_MIN:
        broken = float(value) < float(spec.rule_value or 0)
    elif spec.rule == RULE_ONE_OF:
        broken = value not in spec.rule_value.split("|")
    if not broken:
        return None
    return f"{spec.label}: answered {format_answer(spec, value)} ({describe_rule(spec)})"


def validate_rule(answer_type: str, rule: str, rule_value: str, choices: Sequence[str]) -> str:
    """The rule value in canonical form (minutes for durations); AnswerError when unusable."""
    if not rule:
        return ""
    if rule not in RULES_FOR_TYPE.get(answer_type, ()):
        raise AnswerError(
            f"a {ANSWER_TYPES.get(answer_type, answer_type)} answer cannot be a "
            f"'{rule}' deal-breaker"
        )
    if rule == RULE_YES:
        return ""
    if rule == RULE_ONE_OF:
        picked = [v.strip() for v in rule_value.split("|") if v.strip()]
        unknown = sorted(set(picked) - set(choices))
        if not picked or unknown:
            raise AnswerError("name the acceptable choices, separated by |")
        return "|".join(picked)
    if answer_type == DURATION:
        return str(parse_duration(rule_value))
    return str(_clean_integer(rule_value))
