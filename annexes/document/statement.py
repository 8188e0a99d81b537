"""The monthly statement of a reservation: availability, incidents, maintenance, credits, the
reconciled bills and the realised cost per useful GPU-hour, as both parties read them.

The figures are worked as of the month's end (or now, while the month runs), so a statement of
a closed month renders to the same snapshot — and the same version — until its sources change.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from django.utils import timezone

from acceptance.models import Reservation, ReservationStatus
from bids.models import CapacityRequest
from billing.models import UsageState, UsageUpload
from delivery.selectors import Delivery
from delivery.terms import term_bounds
from engine.delivery.availability import Figure, Month, month_bounds
from engine.formatting import fixed, usd
from scorecards.realised import delivered, predictions, realised_from

SCHEMA = "clusterbid.statement/1"
KIND_STATEMENT = "statement"
MONTH_FIGURES = (
    ("accepted_hours", "Accepted hours"),
    ("scheduled_node_hours", "Scheduled node-hours"),
    ("maintenance_node_hours", "Agreed maintenance (node-hours)"),
    ("down_node_hours", "Down node-hours"),
    ("availability_pct", "Availability"),
    ("accepted_gpu_hours", "Accepted GPU-hours"),
    ("fees", "Fees at the agreed rate"),
    ("tier_credit_pct", "Availability credit (% of fees)"),
    ("breach_credit_pct", "Clock-breach credit (% of fees)"),
    ("credit_pct", "Credit (% of fees, capped)"),
    ("credit", "Credit"),
    ("lost_gpu_hours", "Lost GPU-hours"),
)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _fig(figure: Figure) -> dict[str, str | None]:
    """A figure as the statement prints it: its value through the unit's formatter, and the
    working that reaches that value."""
    return {
        "value": None if figure.value is None else str(figure.value),
        "text": figure.text,
        "formula": figure.formula,
    }


def _overlaps(start: datetime | None, end: datetime | None, month: Month) -> bool:
    return start is not None and start < month.end and (end is None or end > month.start)


def _months(reservation: Reservation, now: datetime) -> dict[str, datetime]:
    """The term's months that have begun by `now`, each with its end (the report's months,
    without working the report)."""
    term = term_bounds(reservation)
    if term is None:
        return {}
    start, end = term
    return {f"{a:%Y-%m}": b for a, b in month_bounds(start, max(start, min(end, now)))}


def statement_months(reservation: Reservation) -> list[str]:
    """The months a statement can be issued for: those of the term that have begun."""
    return list(_months(reservation, timezone.now()))


def reservation_of(
    *, capacity_request: CapacityRequest, reservation: Reservation | None
) -> Reservation | None:
    """`reservation` with what a statement or report prints of it, or the request's
    whole-request reservation (a single award); None before the award."""
    rows = Reservation.objects.select_related(
        "request__buyer", "bid__provider", "bid_revision", "lot"
    )
    if reservation is None:
        return rows.filter(request=capacity_request, lot__isnull=True).first()
    return rows.get(pk=reservation.pk)


def statement_snapshot(
    *, capacity_request: CapacityRequest, period: str, reservation: Reservation | None = None
) -> dict[str, Any]:
    reservation = reservation_of(capacity_request=capacity_request, reservation=reservation)
    if reservation is None or reservation.status != ReservationStatus.ACCEPTED:
        raise ValueError("A statement covers accepted time: the reservation is not accepted yet.")
    months = _months(reservation, timezone.now())
    if period not in months:
        known = ", ".join(months) or "none yet"
        raise ValueError(f"The term has no month {period!r} to date; its months: {known}.")
    as_of = min(months[period], timezone.now())
    # One report for the whole statement: the month's figures, the realised cost and its
    # working are all read from it.
    delivery, note = delivered(reservation=reservation, now=as_of)
    report = delivery.report
    assert report is not None
    month = next(m for m in report.months if m.label == period)
    predicted = predictions([reservation]).get(reservation.pk)
    realised = realised_from(delivery, note=note, predicted=predicted)
    # Only with disputed incidents, so that other statements keep their snapshot and version.
    disputed = {"disputed": _disputed(delivery, period)} if delivery.disputed else {}
    return {
        "schema": SCHEMA,
        "kind": KIND_STATEMENT,
        "period": period,
        "request": {
            "id": capacity_request.pk,
            "title": capacity_request.title,
            "buyer": capacity_request.buyer.name,
        },
        "provider": reservation.bid.provider.name,
        "reservation": reservation.pk,
        "term": {"start": _iso(report.term_start), "end": _iso(report.term_end)},
        "as_of": _iso(as_of),
        "terms_source": delivery.terms_source,
        "month": {key: _fig(getattr(month, key)) for key, _label in MONTH_FIGURES}
        | {"tier": str(month.tier.below_pct) if month.tier else None, "breaches": month.breaches},
        "nodes": [
            {
                "node": n.node,
                "availability_pct": _fig(n.availability_pct),
                "down_hours": fixed(n.down_hours),
                "maintenance_hours": fixed(n.maintenance_hours),
            }
            for n in report.nodes
        ],
        "incidents": [
            {
                "id": i.pk,
                "severity": i.severity,
                "opened_at": _iso(i.window_start or i.opened_at),
                "restored_at": _iso(i.restored_at),
                "nodes": list(i.nodes) or ["whole allocation"],
                "summary": (i.summary or "")[:300],
                # Only when estimated, so statements without an estimate keep their snapshot.
                **(
                    {"checkpoint": delivery.checkpoint_sources[i.pk]}
                    if i.pk in delivery.checkpoint_sources
                    else {}
                ),
            }
            for i in delivery.incidents
            if _overlaps(i.window_start or i.opened_at, i.restored_at, month)
        ],
        "maintenance": [
            {
                "id": w.pk,
                "starts_at": _iso(w.starts_at),
                "ends_at": _iso(w.ends_at),
                "nodes": list(w.nodes) or ["whole allocation"],
                "reason": w.reason[:300],
                "excluded": w.excluded,
            }
            for w in delivery.windows
            if _overlaps(w.starts_at, w.ends_at, month)
        ],
        "bills": _bills(reservation, period),
        "realised": None
        if realised is None
        else {
            "useful_gpu_hours": _fig(report.useful_gpu_hours),
            "credits": _fig(report.credits),
            "paid": _fig(report.paid),
            "cost_per_useful_gpu_hour": _fig(realised.cost),
            "predicted": None
            if predicted is None or predicted.cost_per_useful is None
            else usd(predicted.cost_per_useful, places=4),
            # The report's notes are the workings printed above; said once is enough here.
            "reasons": [r for r in realised.reasons if r not in report.notes],
        },
        **disputed,
    }


DISPUTED_MONTH = (
    ("availability_pct", "Availability"),
    ("down_node_hours", "Down node-hours"),
    ("credit", "Credit"),
    ("lost_gpu_hours", "Lost GPU-hours"),
)
DISPUTED_TERM = (
    ("credits", "Credits, term to date"),
    ("paid", "Paid after credits, term to date"),
    ("cost_per_useful_gpu_hour", "Realised cost per useful GPU-hour"),
)


def _disputed(delivery: Delivery, period: str) -> dict[str, Any]:
    """The disputed incidents, and each party's reading of the figures: the disputed
    incidents it opened counted, those it disputes left out; `totals_use` says whose reading
    the figures above are ("" when each party opened some: then neither, only what is not in
    dispute)."""
    readings = delivery.readings
    months = {
        party: next(m for m in found.months if m.label == period)
        for party, found in readings.items()
    }
    return {
        "incidents": [
            {
                "id": i.pk,
                "severity": i.severity,
                "opened_by": i.opened_by_party,
                "disputed_at": _iso(i.disputed_at),
                "reason": i.dispute_reason[:300],
            }
            for i in delivery.disputed
        ],
        "figures": [
            {"label": label, **{p: getattr(m, key).text for p, m in months.items()}}
            for key, label in DISPUTED_MONTH
        ]
        + [
            {"label": label, **{p: getattr(r, key).text for p, r in readings.items()}}
            for key, label in DISPUTED_TERM
        ],
        "totals_use": delivery.totals_reading,
    }


def _bills(reservation: Reservation, period: str) -> list[dict[str, Any]]:
    """The reconciled usage uploads whose lines cover the month."""
    uploads = UsageUpload.objects.filter(reservation=reservation, state=UsageState.DONE).order_by(
        "uploaded_at", "pk"
    )
    return [
        {
            "id": u.pk,
            "file": u.original_name,
            "sha256": u.sha256,
            "lines": f"{u.lines:,}",
            "billed": usd(_money(u.totals.get("billed"))),
            "allowed": usd(_money(u.totals.get("allowed"))),
            "credits": usd(_money(u.totals.get("credits"))),
            **_net(u.totals),
            "by_rule": dict(sorted(u.by_rule.items())),
        }
        for u in uploads
        if period in (u.totals.get("credit_months") or [])
    ]


def _money(value: object) -> Decimal:
    return Decimal(str(value)) if value not in (None, "") else Decimal(0)


def _net(totals: dict[str, Any]) -> dict[str, str]:
    """What the bill leaves to pay after the credits, never below zero: credits beyond what a
    bill allows mean its months' incidents, or the bill's coverage of them, need checking."""
    allowed, credits = _money(totals.get("allowed")), _money(totals.get("credits"))
    if credits <= allowed:
        return {"net": usd(allowed - credits), "check": ""}
    months = ", ".join(totals.get("credit_months") or []) or "its months"
    return {
        "net": usd(0),
        "check": f"The credits {usd(credits)} due for {months} exceed the {usd(allowed)} this "
        f"bill allows, so nothing is left to pay on it: check the incidents of {months} and "
        "whether the bill covers those months in full.",
    }
