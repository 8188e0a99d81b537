"""Audit entries on an awarded reservation and what hangs off it (incidents), and on a pilot
before the award: both parties to it read them, the buyer and the awarded (or invited)
provider; nobody else. Either party may act, so the entry names the side the user acted for."""

from __future__ import annotations

from typing import Any

from acceptance.models import Pilot, Reservation
from audit.services import audit_record, parties, party_of


def record_on_reservation(
    *,
    reservation: Reservation,
    action: str,
    user: Any,
    obj_key: str = "",
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    reason: str = "",
) -> None:
    buyer_id = reservation.request.buyer_id
    provider_id = reservation.bid.provider_id
    party, org_id = party_of(user=user, buyer_org_id=buyer_id, provider_org_id=provider_id)
    audit_record(
        action=action,
        obj_key=obj_key or f"reservation:{reservation.pk}",
        request_id=reservation.request_id,
        user=user,
        org_id=org_id,
        party=party,
        audience=parties(buyer_org_id=buyer_id, provider_org_id=provider_id),
        before=before,
        after=after,
        reason=reason,
    )


def record_on_pilot(
    *,
    pilot: Pilot,
    action: str,
    user: Any,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> None:
    """A pilot's moves: read by the buyer and the invited provider, never by a rival."""
    buyer_id = pilot.bid.request.buyer_id
    provider_id = pilot.bid.provider_id
    party, org_id = party_of(user=user, buyer_org_id=buyer_id, provider_org_id=provider_id)
    audit_record(
        action=action,
        obj_key=f"pilot:{pilot.pk}",
        request_id=pilot.bid.request_id,
        user=user,
        org_id=org_id,
        party=party,
        audience=parties(buyer_org_id=buyer_id, provider_org_id=provider_id),
        before=before,
        after=after,
    )
