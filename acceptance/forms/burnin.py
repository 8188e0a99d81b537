"""Forms for the burn-in pages; the rules live in acceptance.services.burnin / award."""

from __future__ import annotations

from django import forms

from acceptance.parsers import KINDS
from core.uploads import MultipleFileField


class EvidenceUploadForm(forms.Form):
    # Empty files pass the form so the service refuses each by name and the rest are stored.
    file = MultipleFileField(
        label="Evidence files",
        allow_empty_file=True,
        help_text="Select every file of the run at once: nccl-tests logs, nvidia-smi, dcgmi, "
        "ibstat, step-time CSVs, the fixture's output.",
    )
    node = forms.CharField(
        label="Node",
        required=False,
        max_length=200,
        help_text="Empty for the whole allocation; a node name (gpu-a01); or a node subset "
        "joined with + (gpu-a01+gpu-a02) for bisection runs.",
        widget=forms.TextInput(attrs={"placeholder": "whole allocation"}),
    )
    kind = forms.ChoiceField(
        label="Kind",
        required=False,
        choices=[("", "Detect from the content"), *((k, k) for k in KINDS)],
    )


class RunCreateForm(forms.Form):
    label = forms.CharField(
        label="Label",
        required=False,
        max_length=120,
        widget=forms.TextInput(attrs={"placeholder": "e.g. Burn-in after NIC swap"}),
    )


class AcceptForm(forms.Form):
    reason = forms.CharField(
        label="Override reason",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Only when the gate has not passed: why accept anyway. It is recorded and "
        "shown with the acceptance.",
    )


class RejectForm(forms.Form):
    reason = forms.CharField(
        label="Reason for rejecting", widget=forms.Textarea(attrs={"rows": 3}), max_length=4000
    )
