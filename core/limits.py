"""How much one field may hold, and the words a refusal uses, for forms and the API alike.

Every free-text field has a ceiling: a description of 2 MB is a mistake or an attack, never a
request. The ceiling is enforced where Django and DRF enforce `max_length`; the words are the
product's own, set once (`install_length_messages`) instead of the framework's defaults.
"""

from __future__ import annotations

#: Characters in one free-text field (a description, notes, a term in words).
TEXT_LIMIT = 10_000
#: The years a date in a request or bid may fall in: year 1 or 9999 is a typing slip.
YEARS = (2000, 2100)

FORM_TOO_LONG = "Too long: at most %(limit_value)d characters (this has %(show_value)d)."
API_TOO_LONG = "Too long: at most {max_length} characters."


def install_length_messages() -> None:
    """Put the product's "too long" words on Django's and DRF's length checks."""
    from django.core.validators import MaxLengthValidator
    from rest_framework import serializers

    MaxLengthValidator.message = FORM_TOO_LONG
    serializers.CharField.default_error_messages["max_length"] = API_TOO_LONG


def year_problem(year: int) -> str | None:
    low, high = YEARS
    if low <= year <= high:
        return None
    return f"Check the year: {year:04d} is outside {low}–{high}."
