"""Forms for failed runs and incidents; the rules live in incidents.services."""

from __future__ import annotations

from typing import Any

from django import forms

from core.uploads import MultipleFileField, NamedFileField
from engine import failures
from incidents.models import IncidentEvidenceKind, Severity, Signal
from incidents.services.opening import HAND_SIGNALS


class FailedRunUploadForm(forms.Form):
    # Empty files pass the form so that the service names them.
    bundle = MultipleFileField(
        label="Failed-run evidence",
        allow_empty_file=True,
        help_text="A .tar.gz or .zip bundle, or many files at once: per-rank logs, Flight "
        "Recorder dumps, kernel logs, scheduler output.",
    )
    rank_map = NamedFileField(
        label="Rank → node map",
        required=False,
        allow_empty_file=True,
        help_text="Optional CSV (rank,node[,local_rank,pci_bus_id]) or JSON.",
    )
    world_size = forms.IntegerField(
        label="World size (ranks)",
        required=False,
        min_value=1,
        max_value=failures.MAX_WORLD_SIZE,
        help_text="Empty: the fixture's allocation.",
    )
    label = forms.CharField(label="Label", required=False, max_length=120)


class IncidentOpenForm(forms.Form):
    severity = forms.ChoiceField(label="Severity", choices=Severity.choices)
    reason = forms.CharField(
        label="Why a different severity",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Needed only when you change the proposed severity.",
    )


class SeverityForm(forms.Form):
    severity = forms.ChoiceField(label="Proposed severity", choices=Severity.choices)
    reason = forms.CharField(label="Reason", widget=forms.Textarea(attrs={"rows": 2}))


class AnswerForm(forms.Form):
    """A reason for rejecting a proposal or disputing an incident (a note when accepting)."""

    reason = forms.CharField(
        label="Why", required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2})
    )


class IncidentEvidenceForm(forms.Form):
    kind = forms.ChoiceField(label="What it is", choices=IncidentEvidenceKind.choices)
    file = NamedFileField(label="File")
    node = forms.CharField(
        label="Node (diagnostics)",
        required=False,
        max_length=200,
        help_text="The node the dcgmi diag ran on, one of the reservation's; empty: taken from "
        "the file name. Only runs on the repaired node count.",
    )


class DisputeForm(forms.Form):
    key = forms.CharField(widget=forms.HiddenInput)
    reason = forms.CharField(
        label="Why", widget=forms.Textarea(attrs={"rows": 2, "placeholder": "What is not so"})
    )


class SignoffForm(forms.Form):
    key = forms.CharField(widget=forms.HiddenInput)
    note = forms.CharField(
        label="Note", widget=forms.Textarea(attrs={"rows": 2, "placeholder": "What was checked"})
    )


class LostTimeForm(forms.Form):
    gpus = forms.IntegerField(label="GPUs affected", min_value=1, required=False)
    failed_at = forms.DateTimeField(label="Failure (UTC)", required=False)
    last_checkpoint_at = forms.DateTimeField(label="Last checkpoint written (UTC)", required=False)
    revalidated_at = forms.DateTimeField(label="Revalidated (UTC)", required=False)
    restarted_at = forms.DateTimeField(label="Job restarted (UTC)", required=False)


class SignalOpenForm(forms.Form):
    """Open an incident from a party's own signal; the rules are in services.opening."""

    severity = forms.ChoiceField(label="Severity", choices=Severity.choices)
    signal = forms.ChoiceField(
        label="Signal",
        choices=[(s.value, s.label) for s in (Signal.ALERT, Signal.DRAINED_NODE, Signal.SLOW_JOB,
                                               Signal.OTHER)],
        help_text="The provider opens from an alert or a drained node, the buyer from a slow job.",
    )  # fmt: skip
    nodes = forms.CharField(
        label="Affected nodes",
        max_length=4000,
        help_text="Node labels, separated by commas or spaces (e.g. gpu-a02, gpu-a05).",
    )
    window_start = forms.DateTimeField(label="Started (UTC)", help_text="YYYY-MM-DD HH:MM")
    window_end = forms.DateTimeField(
        label="Ended (UTC)", required=False, help_text="Empty while it lasts."
    )
    summary = forms.CharField(
        label="What was seen", max_length=2000, widget=forms.Textarea(attrs={"rows": 3})
    )

    def __init__(self, *args: Any, party: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if party in HAND_SIGNALS:
            # Offer only the party's own signals, its first one chosen: a choice the service
            # would refuse must never be the default.
            own = HAND_SIGNALS[party]
            field = self.fields["signal"]
            assert isinstance(field, forms.ChoiceField)
            field.choices = [(s.value, s.label) for s in own]
            self.initial.setdefault("signal", own[0].value)


class StepTimesOpenForm(forms.Form):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "id_steps_%s")  # shares a page with SignalOpenForm
        super().__init__(*args, **kwargs)

    # Empty files pass the form so that the service names them.
    file = NamedFileField(
        label="Per-rank step times",
        allow_empty_file=True,
        help_text="CSV rank,node,step,seconds,timestamp (the burn-in format) or "
        "time,step,step_seconds[,rank] (a training log).",
    )
    rank_map = NamedFileField(
        label="Rank → node map",
        required=False,
        allow_empty_file=True,
        help_text="Optional CSV rank,node or JSON, when the file has no node column.",
    )
    nodes = forms.CharField(
        label="Affected nodes",
        required=False,
        max_length=4000,
        help_text="Empty: the nodes of the slowest ranks.",
    )
    summary = forms.CharField(
        label="Summary", required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2})
    )


class AttachForm(forms.Form):
    incident = forms.IntegerField(widget=forms.HiddenInput)


class FewerNodesForm(forms.Form):
    at = forms.DateTimeField(label="Restarted on fewer nodes (UTC)", help_text="YYYY-MM-DD HH:MM")
    continuing_nodes = forms.IntegerField(label="Nodes the job runs on", min_value=1)
