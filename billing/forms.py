"""Page forms: the usage file, and the column mapping (one select per field, from the file's
headers)."""

from __future__ import annotations

from typing import Any

from django import forms

from billing.models import UsageUnit
from engine.billing import FIELDS
from engine.billing.mapping import REQUIRED


class UsageUploadForm(forms.Form):
    file = forms.FileField(
        label="Usage or invoice lines",
        help_text="CSV or XLSX with a header row, as the provider exports it.",
    )


class UsageMappingForm(forms.Form):
    unit = forms.ChoiceField(label="Quantity is in", choices=UsageUnit.choices)
    date_format = forms.CharField(
        label="Date format",
        required=False,
        max_length=40,
        help_text="Empty for ISO 8601 (2026-03-01T14:00:00Z); else e.g. %d/%m/%Y %H:%M.",
    )

    def __init__(self, *args: Any, headers: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [("", "— not in this file —")] + [(h, h) for h in headers if h]
        for name, label in FIELDS.items():
            self.fields[name] = forms.ChoiceField(
                label=label, choices=choices, required=name in REQUIRED
            )
        # The field selects first, in our order; unit and date format after them.
        self.order_fields([*FIELDS, "unit", "date_format"])

    def columns(self) -> dict[str, str]:
        return {name: self.cleaned_data.get(name) or "" for name in FIELDS}
