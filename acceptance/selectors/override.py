"""Reads for acceptance over a failing gate: the blocking checks it would waive, each named by
a stable code, and the reservation's override requests."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import QuerySet
from django.utils.text import slugify

from acceptance.models import BurnInRun, Check, OverrideRequest, Reservation
from engine.evidence.checks.model import BLOCKING


def check_codes(checks: Iterable[Check]) -> list[str]:
    """A code per check row, e.g. 'gpu-query-gpu-model@gpu-a01'; a repeat gets '#2', '#3'."""
    seen: dict[str, int] = {}
    codes = []
    for check in checks:
        code = slugify(check.name) + (f"@{check.node}" if check.node else "")
        seen[code] = seen.get(code, 0) + 1
        codes.append(code if seen[code] == 1 else f"{code}#{seen[code]}")
    return codes


def check_title(check: Check) -> str:
    where = f" on {check.node}" if check.node else ""
    return f"{check.name}{where}: {check.status}"


def blocking_checks(*, run: BurnInRun) -> list[dict[str, Any]]:
    """The run's current mandatory checks that block the gate (fail, missing, inconclusive), in
    page order; empty unless the checks are current."""
    if not run.checks_current or run.checked_version is None:
        return []
    rows = list(Check.objects.filter(run=run, version=run.checked_version).order_by("position"))
    return [
        {
            "code": code,
            "title": check_title(check),
            "status": check.status,
            "measured": check.measured,
            "expected": check.expected,
        }
        for code, check in zip(check_codes(rows), rows, strict=True)
        if check.mandatory and check.status in BLOCKING
    ]


def override_history(*, reservation: Reservation) -> QuerySet[OverrideRequest]:
    """Every override request on the reservation, newest first, with the people named."""
    return (
        OverrideRequest.objects.filter(reservation=reservation)
        .select_related("requested_by", "decided_by", "run")
        .order_by("-requested_at", "-pk")
    )
