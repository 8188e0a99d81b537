"""`{% delivery_panel reservation %}`: the reservation page's Delivery panel (timeline,
availability per month and node, credits, maintenance), the same figures for both parties."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils import timezone

from acceptance.models import Reservation
from delivery.change_selectors import change_list
from delivery.forms import MaintenanceForm
from delivery.lifecycle import ANNOUNCING, WINDOW, announce_decision, change_state
from delivery.selectors import delivery_for, timeline_data
from incidents.lifecycle import reservation_actor

register = template.Library()


@register.inclusion_tag("delivery/_panel.html", takes_context=True)
def delivery_panel(context: dict[str, Any], reservation: Reservation) -> dict[str, Any]:
    user = context["request"].user
    now = timezone.now()
    delivery = delivery_for(reservation=reservation, now=now)
    actor = reservation_actor(reservation, user)
    windows = [
        {"window": w, "agree": WINDOW.decide(w, "agree", actor=actor)} for w in delivery.windows
    ]
    return {
        "reservation": reservation,
        "delivery": delivery,
        "report": delivery.report,
        "windows": windows,
        "timeline": timeline_data(delivery, now=now) if delivery.report else None,
        "announce": announce_decision(reservation, user=user),
        "changes": [(c, change_state(c)) for c in change_list(reservation=reservation)],
        "announce_change": ANNOUNCING.decide(reservation, "announce_change", actor=actor),
        "form": MaintenanceForm(),
        "is_provider": "provider" in actor.roles,
        "csrf_token": context.get("csrf_token"),
    }
