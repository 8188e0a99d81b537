"""Page forms: the usage file, and the column mapping (one select per field, from the file's
headers)."""

from __future__ import annotations

from typing import Any

from django import forms

from billing.bills import (
    BILL_FIELDS,
    DATE_ORDER_CHOICES,
    DECIMAL_CHOICES,
    DELIMITER_CHOICES,
    PROFILE_CHOICES,
)
from billing.models import UsageUnit
from core.uploads import NamedFileField
from engine.billing import FIELDS
from engine.billing.mapping import REQUIRED


class UsageUploadForm(forms.Form):
    file = NamedFileField(
        label="Usage or invoice lines",
        help_text="CSV (or .csv.gz), XLSX or Parquet, as the provider exports it.",
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


class UsageBillForm(forms.Form):
    """How a bill is read, prefilled from what the worker found: the profile and the detected
    dialect (each changeable), the columns, the GPUs of unknown instance types, and which of
    the reservation's nodes each billed id is."""

    profile = forms.ChoiceField(label="Layout (profile)", choices=PROFILE_CHOICES.items())
    delimiter = forms.ChoiceField(
        label="Delimiter", required=False, choices=[("", "as detected"), *DELIMITER_CHOICES.items()]
    )
    decimal = forms.ChoiceField(
        label="Decimal mark",
        required=False,
        choices=[("", "as detected"), *DECIMAL_CHOICES.items()],
    )
    date_order = forms.ChoiceField(
        label="Date order",
        required=False,
        choices=[("", "as detected"), *DATE_ORDER_CHOICES.items()],
    )
    header_row = forms.IntegerField(label="Header row", required=False, min_value=1)
    sheet = forms.CharField(label="Sheet", required=False, max_length=100)

    def __init__(
        self,
        *args: Any,
        headers: list[str],
        questions: list[str],
        billed: list[str],
        nodes: list[str],
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.questions, self.billed = list(questions), list(billed)
        header_choices = [("", "— not in this file —")] + [(h, h) for h in headers if h]
        for name, label in BILL_FIELDS.items():
            self.fields[f"col_{name}"] = forms.ChoiceField(
                label=label, choices=header_choices, required=False
            )
        for i, kind in enumerate(self.questions):
            self.fields[f"answer_{i}"] = forms.IntegerField(
                label=f"GPUs in one '{kind}'" if kind else "GPUs in one instance (no type named)",
                required=False,
                min_value=0,
                max_value=1024,
            )
        node_choices = [("", "— no node of this reservation —")] + [(n, n) for n in nodes]
        for i, billed_id in enumerate(self.billed):
            self.fields[f"node_{i}"] = forms.ChoiceField(
                label=billed_id, choices=node_choices, required=False
            )

    @staticmethod
    def initial_for(
        *,
        mapping: dict[str, Any],
        inspection: dict[str, Any],
        questions: list[str],
        billed: list[str],
    ) -> dict[str, Any]:
        over = dict(mapping.get("overrides") or {})
        columns = dict(mapping.get("columns") or inspection.get("columns") or {})
        answers = dict(mapping.get("answers") or {})
        proposed = dict((inspection.get("node_match") or {}).get("matched") or {})
        nodes = dict(mapping.get("node_map") or {}) or proposed
        initial: dict[str, Any] = {"profile": mapping.get("profile") or inspection.get("profile")}
        initial |= {k: over.get(k, "") for k in ("delimiter", "decimal", "date_order", "sheet")}
        initial["header_row"] = over.get("header_row")
        initial |= {f"col_{f}": h for f, h in columns.items()}
        initial |= {f"answer_{i}": answers.get(q) for i, q in enumerate(questions)}
        initial |= {f"node_{i}": nodes.get(b, "") for i, b in enumerate(billed)}
        return initial

    def columns(self) -> dict[str, str]:
        return {f: self.cleaned_data.get(f"col_{f}") or "" for f in BILL_FIELDS}

    def overrides(self) -> dict[str, Any]:
        names = ("delimiter", "decimal", "date_order", "header_row", "sheet")
        return {
            n: self.cleaned_data.get(n) for n in names if self.cleaned_data.get(n) not in (None, "")
        }

    def answers(self) -> dict[str, Any]:
        return {
            q: self.cleaned_data.get(f"answer_{i}")
            for i, q in enumerate(self.questions)
            if self.cleaned_data.get(f"answer_{i}") is not None
        }

    def node_map(self) -> dict[str, str]:
        return {b: self.cleaned_data.get(f"node_{i}") or "" for i, b in enumerate(self.billed)}

    def field_for(self, key: str) -> str | None:
        """The form field a service error names (a column, an answer, a billed id)."""
        if key in BILL_FIELDS:
            return f"col_{key}"
        if key.startswith("answer:") and key[7:] in self.questions:
            return f"answer_{self.questions.index(key[7:])}"
        if key.startswith("node:") and key[5:] in self.billed:
            return f"node_{self.billed.index(key[5:])}"
        return key if key in self.fields else None
