"""One fact, one field: questions whose answer lives on the bid (pure Python, no Django).

A question bound to a bid field (`QuestionSpec.bound_to`) is not answered in the questionnaire:
its answer is the bid field's value, converted to the question's answer type. A stored answer
to a bound question (saved before the binding existed) is ignored in favour of the field and
reported as a conflict when it disagrees (`facts_conflicts`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from questionnaire.answer_types import (
    DURATION,
    ENUM,
    INTEGER,
    YESNO,
    QuestionSpec,
    format_answer,
)


@dataclass(frozen=True)
class Binding:
    field: str  # the BidTerms field that holds the fact
    label: str  # that field's label on the bid form
    answer_type: str  # the answer type the conversion produces
    convert: Callable[[Any], Any]  # bid value → the question's canonical answer


def _hours_to_minutes(value: Any) -> int | None:
    try:
        return round(Decimal(str(value)) * 60)
    except (InvalidOperation, ValueError):
        return None


_SPARES_DOMAIN = {
    "none": "none",
    "same_fabric_domain": "same_domain",
    "same_site": "same_site",
    "remote": "other_site",
}

BINDINGS: dict[str, Binding] = {
    b.field: b
    for b in (
        Binding("spares_count", "Spare nodes", INTEGER, int),
        Binding("node_replacement_hours", "Node replacement time (h)", DURATION, _hours_to_minutes),
        Binding("coverage", "Support coverage", ENUM, str),
        Binding("spares_location", "Spares location", ENUM, lambda v: _SPARES_DOMAIN.get(str(v))),
        Binding(
            "health_checks_auto_drain",
            "Health checks with auto-drain",
            YESNO,
            lambda v: {"value": "yes" if v else "no", "comment": ""},
        ),
    )
}

# The default questionnaire's questions that ask a bid field again (and older snapshots, which
# carry no `bound_to`, are read with this table).
DEFAULT_BOUND = {
    "spares.count": "spares_count",
    "replacement.time": "node_replacement_hours",
    "coverage.hours": "coverage",
    "spares.domain": "spares_location",
    "health.auto_drain": "health_checks_auto_drain",
}


def binding_of(spec: QuestionSpec, *, legacy: bool = False) -> Binding | None:
    """The binding `spec` declares (or, with `legacy`, the default one for its key); None when
    unbound or when the buyer changed the answer type so that the field no longer fits."""
    name = spec.bound_to or (DEFAULT_BOUND.get(spec.key, "") if legacy else "")
    binding = BINDINGS.get(name)
    return binding if binding is not None and binding.answer_type == spec.answer_type else None


def bound_answers(
    specs: Iterable[QuestionSpec], terms: Mapping[str, Any], *, legacy: bool = False
) -> dict[str, Any]:
    """Question key → the canonical answer its bid field gives, for every bound question."""
    out: dict[str, Any] = {}
    for spec in specs:
        binding = binding_of(spec, legacy=legacy)
        if binding is None or terms.get(binding.field) is None:
            continue
        value = binding.convert(terms[binding.field])
        if value is not None:
            out[spec.key] = value
    return out


def bound_text(spec: QuestionSpec, terms: Mapping[str, Any]) -> str:
    """'Spare nodes = 2', as the questionnaire form and the annex show a bound answer."""
    binding = binding_of(spec)
    if binding is None:
        return ""
    value = bound_answers([spec], terms).get(spec.key)
    # The value carries its unit ('24 h'), so the field's "(h)" would say it twice.
    return f"{binding.label.removesuffix(' (h)')} = {format_answer(spec, value)}"


def bound_labels(specs: Iterable[QuestionSpec]) -> dict[str, str]:
    """Question key → the label of the bid field that answers it."""
    return {s.key: b.label for s in specs if (b := binding_of(s)) is not None}
