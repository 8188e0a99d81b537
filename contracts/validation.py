"""Rules across handoff-terms fields; returns field -> messages (pure Python)."""

from __future__ import annotations

import zoneinfo
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from contracts.defaults import SEVERITIES
from engine.formatting import duration

PERCENT_FIELDS = (
    "degraded_step_time_pct",
    "recovery_nccl_margin_pct",
    "recovery_smoke_margin_pct",
    "degraded_downtime_pct",
)


# The buyer's side of "named owners on both sides with contact"; the provider names its own
# owner when it acknowledges (acceptance.services.acknowledgements).
REQUIRED_OWNER_FIELDS = {
    "buyer_owner_name": "Name the buyer's incident owner: who takes the call when a run fails.",
    "buyer_owner_contact": (
        "Give the buyer's incident owner's contact (e-mail, phone or on-call alias)."
    ),
}


def validate_terms(
    values: Mapping[str, Any], *, owners_required: bool = True
) -> dict[str, list[str]]:
    """Every cross-field problem in a terms dict; an empty dict means it is consistent.

    Only the keys present are checked. `owners_required=False` is for terms just set from a
    template, before the buyer has had the form to name its owner.
    """
    errors: dict[str, list[str]] = {}

    def add(field: str, message: str) -> None:
        errors.setdefault(field, []).append(message)

    if owners_required:
        for field, message in REQUIRED_OWNER_FIELDS.items():
            if field in values and not str(values[field] or "").strip():
                add(field, message)

    previous: dict[str, tuple[str, int]] = {}
    for key, _label in SEVERITIES:
        response = values.get(f"{key}_response_minutes")
        restore = values.get(f"{key}_restore_minutes")
        name = key.upper()
        if isinstance(response, int) and response < 1:
            add(f"{key}_response_minutes", "Give at least 1 minute.")
        if isinstance(response, int) and isinstance(restore, int) and restore < response:
            add(
                f"{key}_restore_minutes",
                f"{name} restore ({duration(restore)}) cannot be shorter than its first response "
                f"({duration(response)}).",
            )
        for clock, value in (("response", response), ("restore", restore)):
            if not isinstance(value, int):
                continue
            before = previous.get(clock)
            if before is not None and value < before[1]:
                add(
                    f"{key}_{clock}_minutes",
                    f"{name} must not be faster than {before[0]} ({duration(before[1])}): "
                    "the more severe level gets the shorter clock.",
                )
            previous[clock] = (name, value)
    for field in PERCENT_FIELDS:
        value = values.get(field)
        if isinstance(value, int | float | Decimal) and not 0 <= value <= 100:
            add(field, "Give a percentage between 0 and 100.")
    window = values.get("degraded_window_minutes")
    if isinstance(window, int) and window < 1:
        add("degraded_window_minutes", "The window must be at least 1 minute.")
    hours = values.get("recovery_no_recurrence_hours")
    if isinstance(hours, int) and hours < 1:
        add("recovery_no_recurrence_hours", "Give at least 1 hour without recurrence.")
    for message in _tier_problems(values.get("sla_credit_tiers")):
        add("sla_credit_tiers", message)
    names = {key.upper() for key, _ in SEVERITIES}
    for field in ("downtime_severities", "whole_allocation_severities"):
        severities = values.get(field)
        if severities is not None and (
            not isinstance(severities, list) or not set(map(str, severities)) <= names
        ):
            add(field, f"Choose among {', '.join(sorted(names))}.")
    fraction = values.get("degraded_downtime_pct")
    downtime = values.get("downtime_severities")
    if (
        isinstance(fraction, int | float | Decimal)
        and 0 < fraction < 100
        and isinstance(downtime, list)
        and "S2" in downtime
    ):
        add(
            "degraded_downtime_pct",
            "S2 is ticked as downtime, which counts all of it: untick S2 there to count it at "
            f"{fraction} %, or leave this at 0.",
        )
    tz = values.get("coverage_timezone")
    if isinstance(tz, str) and tz:
        try:
            zoneinfo.ZoneInfo(tz)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            add("coverage_timezone", f"{tz!r} is not a time zone name (e.g. UTC, Europe/Berlin).")
    return errors


def _tier_problems(tiers: Any) -> list[str]:
    """Tiers as stored: a list of {"below_pct", "credit_pct"}, numbers between 0 and 100."""
    if tiers is None:
        return []
    if not isinstance(tiers, list):
        return ["Give the tiers as a list of {below_pct, credit_pct}."]
    problems = []
    for number, tier in enumerate(tiers, start=1):
        try:
            values = [Decimal(str(tier[k])) for k in ("below_pct", "credit_pct")]
        except (KeyError, TypeError, ArithmeticError, ValueError):
            problems.append(f"Tier {number}: give below_pct and credit_pct as numbers.")
            continue
        if not all(v.is_finite() and 0 <= v <= 100 for v in values):
            problems.append(f"Tier {number}: percentages are between 0 and 100.")
    return problems
