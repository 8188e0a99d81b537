"""The reservation's term as instants (UTC), and the credit terms as the calculator takes them."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from acceptance.models import Reservation
from bids.models.requests import day_start_utc, term_end_utc
from contracts.defaults import STANDARD
from engine.delivery.availability import CreditTerms, Tier


def contracted_bounds(reservation: Reservation) -> tuple[datetime, datetime]:
    """The agreed first day 00:00 UTC, and 00:00 UTC the day after the last (end included)."""
    return day_start_utc(reservation.term_start), term_end_utc(reservation.term_end)


def term_bounds(reservation: Reservation) -> tuple[datetime, datetime] | None:
    """From the clock start to the term's end; None until the buyer accepts."""
    start = reservation.clock_start
    if start is None:
        return None
    _first, end = contracted_bounds(reservation)
    return start.astimezone(UTC), end


def _decimal(value: Any, default: Decimal) -> Decimal:
    try:
        return Decimal(str(value)) if value not in (None, "") else default
    except InvalidOperation:
        return default


def credit_terms(snapshot: dict[str, Any]) -> CreditTerms:
    """From a terms snapshot (decimals stored as strings)."""
    tiers = tuple(
        Tier(_decimal(t.get("below_pct"), Decimal(0)), _decimal(t.get("credit_pct"), Decimal(0)))
        for t in snapshot.get("sla_credit_tiers") or []
        if isinstance(t, dict)
    )
    cap = snapshot.get("sla_credit_cap_pct")
    return CreditTerms(
        tiers=tiers,
        cap_pct=_decimal(cap, Decimal(100)) if cap not in (None, "") else None,
        downtime_severities=frozenset(snapshot.get("downtime_severities") or ()),
        # Terms frozen before the scope was a term read with the standard one (S1: all nodes).
        whole_allocation_severities=frozenset(
            snapshot.get("whole_allocation_severities", STANDARD["whole_allocation_severities"])
            or ()
        ),
        breach_credit_pct=_decimal(snapshot.get("clock_breach_credit_pct"), Decimal(0)),
        degraded_downtime_pct=_decimal(snapshot.get("degraded_downtime_pct"), Decimal(0)),
    )
