"""Forms for the burn-in pages; the rules live in acceptance.services.burnin / award."""

from __future__ import annotations

from typing import Any

from django import forms

from core.uploads import MultipleFileField
from engine.evidence.parsers import KINDS


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


class _Codes(forms.MultipleChoiceField):
    """Check codes; the service names unticked and stale ones, so the form lets any through."""

    def validate(self, value: Any) -> None:
        return None


BASELINE_WARNING = (
    "Leave unticked and a later incident's recovery is measured against the contracted "
    "thresholds. Tick it and the recovery target becomes this run's own figures, which fall "
    "below the contract: a fabric that never reached the agreed bandwidth would count as "
    "recovered at its degraded level."
)


class OverrideRequestForm(forms.Form):
    """Ask to accept over a failing gate: a second buyer-side approver decides."""

    reason = forms.CharField(
        label="Why accept over the failing gate",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="At least one full sentence. It is recorded, shown to the provider and "
        "printed in the contract annex.",
    )
    waived = _Codes(
        label="Blocking checks you waive",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Tick each one: the list is frozen with the request and printed in the annex.",
    )
    baseline_from_run = forms.BooleanField(
        label="Make this overridden run the recovery baseline",
        required=False,
        help_text=BASELINE_WARNING,
    )
    confirm = forms.BooleanField(
        label="I ask to accept this reservation although its gate fails, with the checks "
        "ticked above waived. A buyer-side approver other than me must approve it.",
        required=False,
    )

    def __init__(
        self, *args: Any, blocking: list[dict[str, Any]] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        waived = self.fields["waived"]
        assert isinstance(waived, forms.MultipleChoiceField)
        waived.choices = [(c["code"], c["title"]) for c in blocking or []]


class DeclineOverrideForm(forms.Form):
    reason = forms.CharField(
        label="Why decline",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="The requester reads it; the reservation stays pending.",
    )


class RejectForm(forms.Form):
    reason = forms.CharField(
        label="Reason for rejecting", widget=forms.Textarea(attrs={"rows": 3}), max_length=4000
    )


class ExplainFindingForm(forms.Form):
    prefix = "explain"  # the override form on the same page has its own `reason`
    key = forms.CharField(widget=forms.HiddenInput, max_length=300)
    reason = forms.CharField(
        label="Why this finding does not block",
        widget=forms.Textarea(attrs={"rows": 2}),
        max_length=4000,
        help_text="A full sentence, recorded in the audit trail, e.g. why two nodes' files are "
        "identical.",
    )
