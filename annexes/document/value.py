"""The contract's total value, from the annex snapshot: the allocation's GPU-hours at the bid's
rate, plus its fees and egress. The same sum as the comparison's "Total cost of the term"
(`engine.scoring.cost_model`), worked out in decimals so the cents are exact."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from engine.formatting import usd
from engine.scoring.inputs import reserved_hours


def _decimal(value: Any) -> Decimal | None:
    try:
        return Decimal(str(value)) if value not in (None, "") else None
    except InvalidOperation:
        return None


def term_hours(request: Mapping[str, Any]) -> int | None:
    """The request's reserved hours, as scoring counts them; None when a date is missing."""
    try:
        start = date.fromisoformat(str(request["reservation_start"]))
        end = date.fromisoformat(str(request["reservation_end"]))
    except (KeyError, ValueError):
        return None
    return reserved_hours(start=start, end=end)


def value_rows(snap: Mapping[str, Any]) -> list[tuple[str, str]] | None:
    """The breakdown, one row per part, the total last; None when the snapshot lacks a part."""
    request, terms = snap.get("request") or {}, (snap.get("bid_revision") or {}).get("terms") or {}
    gpus, hours = request.get("gpu_count"), term_hours(request)
    price = _decimal(terms.get("price_per_gpu_hour"))
    fees, egress = _decimal(terms.get("fees_usd")), _decimal(terms.get("egress_usd"))
    if not isinstance(gpus, int) or hours is None or price is None:
        return None
    if fees is None or egress is None:
        return None
    gpu_hours = gpus * hours
    compute = price * gpu_hours
    return [
        ("GPU-hours", f"{gpus:,} GPUs × {hours:,} h ({hours // 24:,} days) = {gpu_hours:,} GPU-h"),
        ("Compute", f"{gpu_hours:,} GPU-h × ${price.normalize():f} per GPU-hour = {usd(compute)}"),
        ("Fees", usd(fees)),
        ("Egress", usd(egress)),
        ("Total contract value", usd(compute + fees + egress)),
    ]
