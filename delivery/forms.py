from __future__ import annotations

from django import forms


class MaintenanceForm(forms.Form):
    starts_at = forms.DateTimeField(label="Starts (UTC)", help_text="YYYY-MM-DD HH:MM")
    ends_at = forms.DateTimeField(label="Ends (UTC)", help_text="YYYY-MM-DD HH:MM")
    nodes = forms.CharField(
        label="Nodes",
        required=False,
        max_length=4000,
        help_text="Node labels, separated by spaces or commas; empty for the whole allocation.",
    )
    reason = forms.CharField(label="What for", widget=forms.Textarea(attrs={"rows": 2}))
