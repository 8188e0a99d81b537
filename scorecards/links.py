"""The scorecard link beside a provider's name, as a renderer (core.panels): the comparison
prints it beside every one of up to 200 bids, where a template per bid cost more than its head."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.html import format_html


def provider_link(context: dict[str, Any]) -> str:
    url = reverse("scorecards:provider-scorecard", args=[context["provider_id"]])
    return format_html(
        '<a href="{}" title="How {}\'s reservations went">scorecard</a>',
        url,
        context["provider_name"],
    )
