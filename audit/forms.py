"""The organisation audit log's filters, read from the query string: a bad value is named on
its field and the page keeps what was typed."""

from __future__ import annotations

from typing import Any

from django import forms

from audit.selectors import OBJECT_KINDS, LogFilters, valid_object_key

KIND_LABELS = {
    "request": "Requests",
    "bid": "Bids",
    "reservation": "Reservations",
    "incident": "Incidents",
    "org": "The organisation",
}
DATE = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")


class LogFilterForm(forms.Form):
    q = forms.CharField(label="Search", required=False, max_length=200)
    kind = forms.ChoiceField(
        label="Object",
        required=False,
        choices=[("", "Any object"), *((k, KIND_LABELS[k]) for k in OBJECT_KINDS)],
    )
    obj_key = forms.CharField(
        label="One object",
        required=False,
        max_length=40,
        help_text="For example request:12 or bid:7.",
    )
    request = forms.IntegerField(
        label="Request number",
        required=False,
        min_value=1,
        max_value=2**63 - 1,
        help_text="Everything on one request: its bids, reservations, maintenance, incidents.",
    )
    actor = forms.ChoiceField(label="Who", required=False)
    action = forms.ChoiceField(label="Action", required=False)
    since = forms.DateField(label="From", required=False, widget=DATE)
    until = forms.DateField(label="Until (included)", required=False, widget=DATE)

    def __init__(self, *args: Any, actions: list[str], actors: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["action"].choices = [("", "Any action"), *((a, a) for a in actions)]  # type: ignore[attr-defined]
        self.fields["actor"].choices = [("", "Anyone"), *((a, a) for a in actors)]  # type: ignore[attr-defined]

    def clean_obj_key(self) -> str:
        value = str(self.cleaned_data.get("obj_key") or "").strip()
        if value and not valid_object_key(value):
            raise forms.ValidationError(
                "Name one object as kind:number, for example request:12 or bid:7."
            )
        return value

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        since, until = data.get("since"), data.get("until")
        if since and until and until < since:
            self.add_error("until", "The last day cannot be before the first.")
        return data

    def filters(self) -> LogFilters:
        """The valid filters; a refused field narrows nothing (its error says why)."""
        data = getattr(self, "cleaned_data", {})
        return LogFilters(
            q=data.get("q") or "",
            kind=data.get("kind") or "",
            obj_key=data.get("obj_key") or "",
            request_id=data.get("request"),
            actor=data.get("actor") or "",
            action=data.get("action") or "",
            since=data.get("since"),
            until=data.get("until"),
        )
