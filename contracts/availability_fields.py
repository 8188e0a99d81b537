"""Form fields for the availability terms: credit tiers as text lines ("99.9 10": below %,
credit %), each error naming its line; the severities that count as downtime as checkboxes."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from contracts.defaults import SEVERITIES

AVAILABILITY_MARKER = "availability_shown"
MAX_TIERS = 10


def _pct(token: str, *, line: int, what: str) -> str:
    try:
        value = Decimal(token.rstrip("%"))
    except InvalidOperation:
        raise ValidationError(f"Line {line}: “{token[:20]}” is not a number ({what}).") from None
    if not value.is_finite() or not 0 <= value <= 100:
        raise ValidationError(f"Line {line}: the {what} must be between 0 and 100.")
    return token.rstrip("%")


def parse_tiers(text: str) -> list[dict[str, str]]:
    """Lines "below% credit%" → [{"below_pct", "credit_pct"}], in the order given; numbers kept
    as typed so that an unchanged form saves an unchanged terms version."""
    tiers: list[dict[str, str]] = []
    seen: dict[Decimal, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        parts = raw.replace(",", " ").split()
        if not parts:
            continue
        if len(parts) != 2:
            raise ValidationError(
                f"Line {number}: give two numbers, the availability % and the credit %, "
                f"e.g. “99.9 10”; found “{raw.strip()[:40]}”."
            )
        below = _pct(parts[0], line=number, what="availability below which the tier applies")
        credit = _pct(parts[1], line=number, what="credit")
        if Decimal(below) in seen:
            raise ValidationError(
                f"Line {number}: {below} % is already the tier of line {seen[Decimal(below)]}."
            )
        seen[Decimal(below)] = number
        tiers.append({"below_pct": below, "credit_pct": credit})
    if len(tiers) > MAX_TIERS:
        raise ValidationError(f"At most {MAX_TIERS} tiers; {len(tiers)} given.")
    return tiers


class TiersField(forms.CharField):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("label", "SLA credit tiers")
        kwargs.setdefault("widget", forms.Textarea(attrs={"rows": 4}))
        kwargs.setdefault(
            "help_text",
            "One tier a line: monthly availability below this %, then the credit as % of the "
            "month's fees, e.g. “99.9 10”. The lowest tier reached applies. Empty: no credits.",
        )
        super().__init__(**kwargs)

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, list):
            return "\n".join(f"{t.get('below_pct')} {t.get('credit_pct')}" for t in value)
        return value

    def clean(self, value: Any) -> list[dict[str, str]]:
        return parse_tiers(str(super().clean(value) or ""))


class SeveritiesField(forms.MultipleChoiceField):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("label", "Severities that count as downtime")
        kwargs.setdefault("choices", [(key.upper(), label) for key, label in SEVERITIES])
        kwargs.setdefault("widget", forms.CheckboxSelectMultiple)
        super().__init__(**kwargs)

    def clean(self, value: Any) -> list[str]:
        chosen = set(super().clean(value))
        return [key.upper() for key, _ in SEVERITIES if key.upper() in chosen]
