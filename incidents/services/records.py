"""The audit entry every incident change writes (on its reservation's trail)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from acceptance.audit import record_on_reservation
from incidents.models import Incident


def _record(incident: Incident, action: str, user: User | None, **values: Any) -> None:
    record_on_reservation(
        reservation=incident.reservation,
        action=action,
        user=user,
        obj_key=f"incident:{incident.pk}",
        **values,
    )
