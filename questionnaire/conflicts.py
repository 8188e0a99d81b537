"""Where two stated values of one fact disagree (pure Python, no Django).

Conservative on purpose: a number is read from free text only in a few plain phrasings
("2 spare nodes", "spares: 2", "72 hours' notice", "notice of 7 days", "replaced within 4 h"),
so that every flag can be explained by quoting where each value is stated.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.formatting import duration
from questionnaire.answer_types import DURATION, TEXT, YESNO, QuestionSpec, format_answer
from questionnaire.facts import BINDINGS, binding_of, bound_answers

SPARES, REPLACEMENT, NOTICE = "Spare nodes", "Node replacement time", "Maintenance notice"
NOTICE_KEY = "maintenance.notice"
RESERVATION_KEY = "spares.reservation"
# Free-text fields of the bid that may state a fact in words.
BID_TEXT_FIELDS = {
    "notes": "the bid's notes",
    "sla_credits": "the bid's SLA credits",
    "billing_terms": "the bid's billing terms",
}
AGREED_TEXT_FIELDS = {"spares": "Spares", "partial_capacity_billing": "Partial-capacity billing"}


@dataclass(frozen=True)
class Conflict:
    fact: str  # e.g. "Spare nodes"
    value: str  # as the home of the fact states it
    where: str  # e.g. "the bid field 'Spare nodes'"
    other_value: str
    other_where: str  # e.g. "the bid's notes"
    quote: str = ""  # the words that state it there: "'… 2 spare nodes …'"
    # An answer stored before its question was bound to a bid field: the submit freezes the
    # field's value and ignores it, so it needs no settling before the submit.
    settles_itself: bool = False

    @property
    def message(self) -> str:
        quoted = f": {self.quote}" if self.quote else ""
        return f"{self.without_quote[:-1]}{quoted}."

    @property
    def without_quote(self) -> str:
        """The message without the provider's own words (an anonymised comparison shows it)."""
        return (
            f"{self.fact}: {self.value} in {self.where}, but {self.other_value} in "
            f"{self.other_where}."
        )


def same_conflict(message: str, shown: str) -> bool:
    """Whether `shown` (a conflict's `message`, or its `without_quote` as an anonymised
    comparison prints it) is the conflict `message` states. One conflict per fact, place and
    value, so the words quoted are all that can tell the two printings apart."""
    return shown == message or message.startswith(f"{shown[:-1]}: ")


_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        [
            *("zero", "one", "two", "three", "four", "five", "six"),
            *("seven", "eight", "nine", "ten", "eleven", "twelve"),
        ]
    )
}
_NUM = r"(\d{1,5}|" + "|".join(_NUMBER_WORDS) + r")"
_KIND = r"(?:(?:hot|cold|reserved|dedicated)\s+)"
_SPARES_RES = (
    # "2 spare nodes", "two hot spares", "1 hot spare" (never "2 spare parts")
    re.compile(rf"\b{_NUM}\s+{_KIND}?(?:spare\s+(?:nodes?|servers?|hosts?)|spares)\b"),
    re.compile(rf"\b{_NUM}\s+(?:hot|cold)\s+spare\b"),
    re.compile(r"\bspare(?:\s+node)?s\s*[:=]\s*(\d{1,5})\b"),
)
_UNIT = r"(minutes?|mins?|hours?|hrs?|h|days?|d|weeks?)"
_NOTICE_RES = (
    re.compile(
        rf"\b(\d{{1,4}}(?:\.\d+)?)\s*{_UNIT}(?:['’]s?)?\s+(?:of\s+)?(?:advance\s+|prior\s+)?notice\b"
    ),
    re.compile(rf"\bnotice\s+(?:of|period\s+of|:)\s*(\d{{1,4}}(?:\.\d+)?)\s*{_UNIT}\b"),
)
_REPLACEMENT_RES = (
    re.compile(
        rf"\breplac\w*\b[^.;\n]{{0,40}}?\b(?:within|in|inside)\s+(\d{{1,4}}(?:\.\d+)?)\s*{_UNIT}\b"
    ),
)
_MINUTES = {"m": 1, "h": 60, "d": 1440, "w": 10080}


def _minutes(amount: str, unit: str) -> int:
    return round(float(amount) * _MINUTES[unit.lower()[0]])


def _quote(text: str, start: int, end: int) -> str:
    """The match with a few whole words either side, as the flag quotes it."""
    lo, hi = max(0, start - 24), min(len(text), end + 24)
    if lo > 0:
        lo = text.find(" ", lo, start) + 1 or start
    if hi < len(text):
        hi = text.rfind(" ", end, hi + 1) if text.rfind(" ", end, hi + 1) >= end else end
    return f"'{'…' if lo else ''}{text[lo:hi].strip()}{'…' if hi < len(text) else ''}'"


def _found(text: str, fact: str) -> Iterable[tuple[int, str]]:
    """(canonical value, quote) for each statement of `fact` in `text`: a count, or minutes."""
    lowered = text.lower()
    if fact == SPARES:
        for pattern in _SPARES_RES:
            for m in pattern.finditer(lowered):
                raw = m.group(1)
                yield (
                    (_NUMBER_WORDS[raw] if raw in _NUMBER_WORDS else int(raw)),
                    _quote(text, m.start(), m.end()),
                )
        return
    patterns = _NOTICE_RES if fact == NOTICE else _REPLACEMENT_RES
    for pattern in patterns:
        for m in pattern.finditer(lowered):
            yield _minutes(m.group(1), m.group(2)), _quote(text, m.start(), m.end())


def _texts(
    terms: Mapping[str, Any], specs: Iterable[QuestionSpec], answers: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """(where, text) of every free text the bid and its answers state."""
    out = [(where, str(terms.get(name) or "")) for name, where in BID_TEXT_FIELDS.items()]
    for spec in specs:
        value = answers.get(spec.key)
        if spec.answer_type == TEXT and isinstance(value, str):
            out.append((f"the questionnaire answer '{spec.text}'", value))
        elif spec.answer_type == YESNO and isinstance(value, Mapping) and value.get("comment"):
            out.append((f"the comment on '{spec.text}'", str(value["comment"])))
    return [(where, text) for where, text in out if text.strip()]


def find_conflicts(
    *,
    terms: Mapping[str, Any],
    specs: Iterable[QuestionSpec],
    answers: Mapping[str, Any],
    agreed: Mapping[str, Any] | None = None,
    legacy: bool = False,
) -> list[Conflict]:
    """Every fact stated twice with two values.

    `terms`: the bid's terms (draft or revision); `answers`: questionnaire answers as stored or
    frozen, so a stored answer to a bound question that disagrees with the field is found;
    `agreed`: the request's handoff terms, whose maintenance notice is the agreed one;
    `legacy`: read the default bindings for snapshots frozen before questions declared them.
    """
    specs = list(specs)
    out: list[Conflict] = []
    bound = bound_answers(specs, terms, legacy=legacy)
    for spec in specs:
        binding = binding_of(spec, legacy=legacy)
        given = answers.get(spec.key)
        if binding is None or spec.key not in bound or given is None:
            continue
        if _same(given, bound[spec.key]):
            continue
        out.append(
            Conflict(
                binding.label.removesuffix(" (h)"),
                format_answer(spec, bound[spec.key]),
                f"the bid field '{binding.label}'",
                format_answer(spec, given),
                f"the questionnaire answer '{spec.text}' (stored before it was bound to the bid)",
                settles_itself=True,
            )
        )
    if (notice := notice_conflict(specs, answers, agreed)) is not None:
        out.append(notice)
    out += _reservation_conflicts(terms, specs, answers)
    if (coverage := coverage_conflict(terms, agreed)) is not None:
        out.append(coverage)
    texts = _texts(terms, specs, answers)
    # The handoff terms' own words on spares and partial capacity state facts too.
    texts += [
        (f"the handoff terms '{label}'", str(agreed[name]))
        for name, label in AGREED_TEXT_FIELDS.items()
        if agreed and str(agreed.get(name) or "").strip()
    ]
    for fact, (home, where, shown) in _homes(terms, specs, answers, agreed).items():
        for text_where, text in texts:
            for value, quote in _found(text, fact):
                if value != home:
                    other = str(value) if fact == SPARES else duration(value)
                    out.append(Conflict(fact, shown, where, other, text_where, quote))
    # Two phrasings can match the same words ("2 hot spare nodes"): each conflict once.
    seen: set[tuple[str, str, str]] = set()
    unique = []
    for conflict in out:
        key = (conflict.fact, conflict.other_value, conflict.other_where)
        if key not in seen:
            seen.add(key)
            unique.append(conflict)
    return unique


def _same(given: Any, expected: Any) -> bool:
    if isinstance(given, Mapping) and isinstance(expected, Mapping):
        return given.get("value") == expected.get("value")
    return bool(given == expected)


def _hours(minutes: int) -> str:
    """A value its home keeps in hours reads in hours, as that field prints it: '72 h'."""
    return f"{minutes / 60:g} h"


def _homes(
    terms: Mapping[str, Any],
    specs: list[QuestionSpec],
    answers: Mapping[str, Any],
    agreed: Mapping[str, Any] | None,
) -> dict[str, tuple[int, str, str]]:
    """Per fact: the value its home states (a count, or minutes), where, and as shown."""
    homes: dict[str, tuple[int, str, str]] = {}
    if terms.get("spares_count") is not None:
        spares = int(terms["spares_count"])
        homes[SPARES] = (spares, "the bid field 'Spare nodes'", str(spares))
    replacement = BINDINGS["node_replacement_hours"].convert(terms.get("node_replacement_hours"))
    if terms.get("node_replacement_hours") is not None and replacement is not None:
        where = "the bid field 'Node replacement time (h)'"
        homes[REPLACEMENT] = (replacement, where, _hours(replacement))
    notice = notice_home(specs, answers, agreed)
    if notice is not None:
        homes[NOTICE] = notice
    return homes


def notice_home(
    specs: Iterable[QuestionSpec], answers: Mapping[str, Any], agreed: Mapping[str, Any] | None
) -> tuple[int, str, str] | None:
    """The maintenance notice that governs (minutes, where, as shown): the agreed handoff
    terms', else the questionnaire answer's."""
    if agreed and agreed.get("maintenance_notice_hours") is not None:
        minutes = int(agreed["maintenance_notice_hours"]) * 60
        return minutes, "the handoff terms 'Planned-maintenance notice (h)'", _hours(minutes)
    spec = next((s for s in specs if s.key == NOTICE_KEY and s.answer_type == DURATION), None)
    if spec is not None and answers.get(NOTICE_KEY) is not None:
        minutes = int(answers[NOTICE_KEY])
        return minutes, f"the questionnaire answer '{spec.text}'", duration(minutes)
    return None


def notice_conflict(
    specs: Iterable[QuestionSpec], answers: Mapping[str, Any], agreed: Mapping[str, Any] | None
) -> Conflict | None:
    """The questionnaire's notice against the agreed terms' (the bid carries no notice field)."""
    spec = next((s for s in specs if s.key == NOTICE_KEY and s.answer_type == DURATION), None)
    given = answers.get(NOTICE_KEY) if spec is not None else None
    if spec is None or given is None or not agreed:
        return None
    home = notice_home([], {}, agreed)
    if home is None or home[0] == int(given):
        return None
    answer = duration(int(given))
    return Conflict(NOTICE, home[2], home[1], answer, f"the questionnaire answer '{spec.text}'")


def _reservation_conflicts(
    terms: Mapping[str, Any], specs: list[QuestionSpec], answers: Mapping[str, Any]
) -> list[Conflict]:
    """'No spares' answered beside a spare count on the bid, or reserved spares beside none."""
    spec = next((s for s in specs if s.key == RESERVATION_KEY), None)
    given, count = answers.get(RESERVATION_KEY), terms.get("spares_count")
    if spec is None or not isinstance(given, str) or count is None:
        return []
    if (given == "none") == (int(count) == 0):
        return []
    where = f"the questionnaire answer '{spec.text}'"
    field = "the bid field 'Spare nodes'"
    return [Conflict(SPARES, str(count), field, format_answer(spec, given), where)]


# How the handoff terms' coverage hours (free text) read as the bid's coverage choice.
_COVERAGE_WORDS = (
    ("24x7", re.compile(r"24\s*(?:x|×|/)\s*7|round the clock|around the clock")),
    ("business_hours", re.compile(r"business hours|mon(?:day)?\s*[–-]\s*fri|weekdays")),
)
_COVERAGE_LABELS = {
    "24x7": "24 × 7",
    "extended": "Extended hours",
    "business_hours": "Business hours",
}


def coverage_conflict(
    terms: Mapping[str, Any], agreed: Mapping[str, Any] | None
) -> Conflict | None:
    """The bid's support coverage against the coverage hours the handoff terms agree."""
    text = str((agreed or {}).get("coverage_hours") or "")
    offered = terms.get("coverage")
    read = next((value for value, rx in _COVERAGE_WORDS if rx.search(text.lower())), None)
    if not text or offered is None or read is None or read == offered:
        return None
    return Conflict(
        "Support coverage",
        _COVERAGE_LABELS.get(str(offered), str(offered)),
        "the bid field 'Support coverage'",
        text,
        "the handoff terms 'Support coverage hours'",
    )
