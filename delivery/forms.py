from __future__ import annotations

from typing import Any

from django import forms
from django.db.models import QuerySet

from delivery.models import ChangeKind, MaintenanceWindow


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


def _window_label(obj: MaintenanceWindow) -> str:
    return f"#{obj.pk} {obj.starts_at:%Y-%m-%d %H:%M}–{obj.ends_at:%H:%M} UTC on {obj.node_label}"


class PlannedChangeForm(forms.Form):
    window = forms.ModelChoiceField(
        label="Maintenance window",
        queryset=MaintenanceWindow.objects.none(),
        help_text="The change rolls out inside this window; announce one first if none fits.",
    )
    kind = forms.ChoiceField(label="Kind", choices=ChangeKind.choices)
    component = forms.CharField(
        label="What changes", max_length=120, help_text="e.g. NVIDIA driver, HCA firmware."
    )
    from_version = forms.CharField(label="Version now", max_length=120)
    to_version = forms.CharField(label="Version after", max_length=120)
    nodes = forms.CharField(
        label="Nodes it reaches",
        required=False,
        max_length=4000,
        help_text="Node labels, spaces or commas between; empty: the window's nodes.",
    )
    canary_nodes = forms.CharField(
        label="Canary nodes",
        max_length=4000,
        help_text="Where the canary runs first: at least one node, fewer than the change reaches.",
    )
    description = forms.CharField(
        label="Why", required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2})
    )

    def __init__(self, *args: Any, windows: QuerySet[MaintenanceWindow], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["window"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = windows
        field.label_from_instance = _window_label  # type: ignore[method-assign]


class ChangeAnswerForm(forms.Form):
    decision = forms.ChoiceField(
        choices=[("accept", "Accept"), ("object", "Object")], widget=forms.HiddenInput
    )
    reason = forms.CharField(
        label="Why you object",
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
