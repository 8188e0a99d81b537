from __future__ import annotations

from django import forms

from core.uploads import NamedFileField
from inference.services import LABEL_MAX


class ServedUploadForm(forms.Form):
    file = NamedFileField(
        label="Served-responses file",
        help_text=(
            "vLLM's serving benchmark result (JSON, saved with per-request detail), or a "
            "per-request log (CSV or JSON lines: request_id, start, first_token, end, "
            "output_tokens, status)."
        ),
    )
    label = forms.CharField(
        label="Label",
        required=False,
        max_length=LABEL_MAX,
        help_text="What was served, e.g. “chat traffic, 30 Nov, concurrency 64”.",
    )
