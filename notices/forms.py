"""The preferences table as a form: two checkboxes per event (`<event>__email`, `__in_app`)."""

from __future__ import annotations

from typing import Any

from django import forms

from notices.selectors import PreferenceRow

CHANNELS = ("email", "in_app")
CHANNEL_NAMES = {"email": "by e-mail", "in_app": "in the app"}


class PreferencesForm(forms.Form):
    def __init__(self, *args: Any, rows: list[PreferenceRow], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rows = rows
        for row in rows:
            for channel in CHANNELS:
                # The table shows the event once per row; each box still needs its own name.
                name = f"{row.label}, {CHANNEL_NAMES[channel]}"
                self.fields[f"{row.event}__{channel}"] = forms.BooleanField(
                    required=False,
                    initial=getattr(row, channel),
                    label=name,
                    widget=forms.CheckboxInput(attrs={"aria-label": name}),
                )

    def choices(self) -> dict[str, tuple[bool, bool]]:
        data = self.cleaned_data
        return {
            row.event: (bool(data[f"{row.event}__email"]), bool(data[f"{row.event}__in_app"]))
            for row in self.rows
        }

    def table(self) -> list[tuple[PreferenceRow, forms.BoundField, forms.BoundField]]:
        return [
            (row, self[f"{row.event}__email"], self[f"{row.event}__in_app"]) for row in self.rows
        ]
