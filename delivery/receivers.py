"""What delivery does when acceptance signals (connected in `ready`)."""

from __future__ import annotations

from typing import Any

from acceptance.models import BurnInRun, Canary
from delivery.changes import change_path
from delivery.models import PlannedChange
from notices.choices import Event
from notices.services import notify_members


def canary_checked_notify(*, sender: Any, canary: Canary, run: BurnInRun, **kwargs: Any) -> None:
    """Both parties to the change hear the canary's verdict, once per evidence version: the
    buyer reads it before the window opens."""
    change = (
        PlannedChange.objects.select_related(
            "window", "reservation__request__buyer", "reservation__bid__provider"
        )
        .filter(canary=canary)
        .first()
    )
    if change is None:
        return
    request = change.reservation.request
    verdict = "passed" if run.gate_passed else "did not pass"
    for organization in (request.buyer, change.reservation.bid.provider):
        notify_members(
            event=Event.CANARY_CHECKED,
            organization=organization,
            subject=f"Canary {verdict}: {change} on “{request.title}”",
            body=(
                f"The canary of {change.component} {change.to_version} on "
                f"{', '.join(canary.nodes)} was checked: {run.gate_summary or verdict}. The "
                f"window opens {change.window.starts_at:%Y-%m-%d %H:%M} UTC."
            ),
            path=change_path(change),
            key=f"canary-checked:{change.pk}:{run.checked_version}",
        )
