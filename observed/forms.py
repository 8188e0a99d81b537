"""The upload form and the buyer's choice of result."""

from __future__ import annotations

from decimal import Decimal

from django import forms

from core.uploads import NamedFileField
from observed.models import ObservedKind, ResultUnit


class ObservedUploadForm(forms.Form):
    kind = forms.ChoiceField(label="What the file is", choices=ObservedKind.choices)
    file = NamedFileField(
        label="File",
        help_text="As the tool writes it: docs/observed-outcomes.md lists the commands.",
    )


class ResultForm(forms.Form):
    unit = forms.ChoiceField(label="The result you pay for", choices=ResultUnit.choices)
    expected_per_gpu_hour = forms.DecimalField(
        label="Expected per GPU-hour",
        required=False,
        min_value=Decimal("0.0001"),
        max_digits=12,
        decimal_places=4,
        help_text="How many results you expected per GPU-hour: the predicted cost is the "
        "award's cost per useful GPU-hour over it. Empty: no prediction.",
    )
