"""Forms for the incident record (change log, repair estimate). Kinds and cause classes are
plain text fields on a select: the service names a value it does not know, and the form keeps
what was typed."""

from __future__ import annotations

from typing import Any

from django import forms

from incidents.models import CauseClass, ChangeKind, Confidence, Incident


def _evidence_choices(incident: Incident) -> list[tuple[str, str]]:
    return [
        (str(e.pk), f"{e.original_name} ({e.get_kind_display()})")
        for e in incident.evidence.order_by("pk")
    ]


class _WithEvidence(forms.Form):
    ID_FORMAT = "change_%s"
    evidence = forms.MultipleChoiceField(
        label="Recovery evidence rerun",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="The uploads that show the checks after the change.",
    )

    def __init__(self, *args: Any, incident: Incident, **kwargs: Any) -> None:
        # Ids of their own: the incident page already has the evidence form's `id_kind`.
        kwargs.setdefault("auto_id", self.ID_FORMAT)
        super().__init__(*args, **kwargs)
        field = self.fields["evidence"]
        assert isinstance(field, forms.MultipleChoiceField)
        field.choices = _evidence_choices(incident)


class ChangeProposeForm(_WithEvidence):
    kind = forms.CharField(
        label="Kind", widget=forms.Select(choices=[("", "—"), *ChangeKind.choices])
    )
    what = forms.CharField(
        label="What changes",
        widget=forms.Textarea(
            attrs={"rows": 2, "placeholder": "e.g. NCCL_IB_HCA limited to mlx5_0-3 on node-17"}
        ),
    )
    checks_rerun = forms.CharField(
        label="Checks rerun",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "placeholder": "e.g. all_reduce_perf, 2 nodes"}),
    )


class ChangeDecideForm(forms.Form):
    decision = forms.ChoiceField(choices=[("approve", "Approve"), ("decline", "Decline")])
    note = forms.CharField(label="Note", required=False, max_length=2000)


class ChangeApplyForm(_WithEvidence):
    checks_rerun = forms.CharField(
        label="Checks rerun",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )


class EstimateForm(forms.Form):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "estimate_%s")
        super().__init__(*args, **kwargs)

    cause_class = forms.CharField(
        label="Cause class",
        widget=forms.Select(choices=[("", "—"), *CauseClass.choices]),
    )
    parts = forms.CharField(
        label="Parts (one a line)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "placeholder": "e.g. H200 SXM GPU (1)"}),
    )
    eta = forms.DateTimeField(
        label="ETA (UTC, YYYY-MM-DD HH:MM)", required=False, widget=forms.DateTimeInput()
    )
    confidence = forms.CharField(
        label="Confidence", widget=forms.Select(choices=[("", "—"), *Confidence.choices])
    )
    note = forms.CharField(label="Note", required=False, widget=forms.Textarea(attrs={"rows": 2}))
