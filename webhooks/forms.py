"""The endpoint form: the events offered are those an organisation of this kind receives."""

from __future__ import annotations

from typing import Any

from django import forms

from orgs.models import Organization
from webhooks.choices import PayloadFormat
from webhooks.models import URL_MAX
from webhooks.selectors import events_for


class EndpointForm(forms.Form):
    url = forms.CharField(
        label="URL",
        max_length=URL_MAX,
        help_text="Where each event is posted (https://). A Slack incoming webhook's URL, "
        "PagerDuty's https://events.pagerduty.com/v2/enqueue, or your own receiver.",
    )
    payload_format = forms.ChoiceField(
        label="Payload format",
        choices=PayloadFormat.choices,
        help_text="Slack and PagerDuty get their own message shapes; everything else the "
        "signed Clusterbid JSON. Fixed once created.",
    )
    routing_key = forms.CharField(
        label="PagerDuty routing key",
        max_length=64,
        required=False,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        help_text="The integration key of the PagerDuty service (Events API v2). PagerDuty only. "
        "Stored encrypted and never shown again; when editing, leave empty to keep it.",
    )
    description = forms.CharField(label="Description", max_length=200, required=False)
    events = forms.MultipleChoiceField(
        label="Events", widget=forms.CheckboxSelectMultiple, choices=()
    )
    active = forms.BooleanField(label="Active: send deliveries", required=False, initial=True)

    def __init__(
        self, *args: Any, organization: Organization, editing: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.fields["events"].choices = events_for(organization)  # type: ignore[attr-defined]
        if editing:
            del self.fields["payload_format"]
        else:
            del self.fields["active"]
