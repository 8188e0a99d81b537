"""Each provider's recorded track record, read for scoring in two queries whatever the bid count.

The record is the provider's, so it spans every buyer's accepted reservations with it; only
counts and medians leave this module, never which buyer or reservation they came from.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, time
from typing import Any

from django.utils import timezone

from acceptance.models import Reservation, ReservationStatus
from bids.models import CapacityRequest
from bids.models.requests import term_end_utc
from contracts.defaults import STANDARD
from engine.scoring import ProviderHistory, TimingRecord
from engine.scoring.serialize import to_jsonable
from incidents.models import Incident

HOUR = 3600.0


def history_as_of(capacity_request: CapacityRequest) -> datetime:
    """The moment the record is read at: the close of bidding once closed, so the scores a
    buyer awards on stay put; else the start of today (UTC), so they move at most daily."""
    if capacity_request.closed_at is not None:
        return capacity_request.closed_at
    return datetime.combine(timezone.now().astimezone(UTC).date(), time.min, tzinfo=UTC)


@dataclass
class _Tally:
    reservations: int = 0
    node_hours: float = 0.0
    incidents: int = 0
    closed: int = 0
    detection: list[float] = field(default_factory=list)
    repair: list[float] = field(default_factory=list)
    revalidation: list[float] = field(default_factory=list)

    def history(self) -> ProviderHistory:
        return ProviderHistory(
            reservations=self.reservations,
            node_hours=self.node_hours,
            incidents=self.incidents,
            closed_incidents=self.closed,
            detection=TimingRecord.of(self.detection),
            repair=TimingRecord.of(self.repair),
            revalidation=TimingRecord.of(self.revalidation),
        )


def _seconds(start: datetime | None, end: datetime | None) -> float | None:
    return (end - start).total_seconds() if start is not None and end is not None else None


def provider_histories(
    *, provider_ids: Iterable[int], as_of: datetime, buyer_id: int | None = None
) -> dict[int, ProviderHistory]:
    """Accepted node-hours (nodes x hours from the clock start to the earlier of `as_of` and the
    term's end), the incidents whose severity the reservation's terms count as downtime, and the
    median detection, repair and revalidation of those closed by `as_of`. Providers with no
    accepted reservation are left out."""
    ids = sorted(set(provider_ids))
    if not ids:
        return {}
    accepted = Reservation.objects.filter(
        bid__provider_id__in=ids, status=ReservationStatus.ACCEPTED
    )
    if buyer_id is not None:  # a buyer's own scorecard: its reservations only
        accepted = accepted.filter(request__buyer_id=buyer_id)
    rows = accepted.values(
        "pk",
        "bid__provider_id",
        "clock_starts_at",
        "decision__at",
        "request__reservation_end",
        "bid_revision__nodes",
    )
    windows: dict[int, tuple[int, datetime, datetime]] = {}
    tallies: dict[int, _Tally] = defaultdict(_Tally)
    for row in rows:
        # Reservations accepted before the clock start was stored start at the decision.
        start = row["clock_starts_at"] or row["decision__at"]
        if start is None or start >= as_of:
            continue
        end = min(as_of, term_end_utc(row["request__reservation_end"]))
        tally = tallies[row["bid__provider_id"]]
        tally.reservations += 1
        tally.node_hours += (row["bid_revision__nodes"] or 0) * max(
            0.0, (end - start).total_seconds() / HOUR
        )
        windows[row["pk"]] = (row["bid__provider_id"], start, end)
    if not windows:
        return {}
    _count_incidents(windows, tallies, as_of)
    return {provider: tally.history() for provider, tally in tallies.items()}


def _count_incidents(
    windows: Mapping[int, tuple[int, datetime, datetime]],
    tallies: Mapping[int, _Tally],
    as_of: datetime,
) -> None:
    incidents = Incident.objects.filter(
        reservation_id__in=list(windows), opened_at__lt=as_of
    ).values(
        "reservation_id",
        "severity",
        "opened_at",
        "failed_at",
        "responded_at",
        "restored_at",
        "revalidated_at",
        "closed_at",
        # The terms the incident ran on; else the request's current terms; else the standard.
        "terms_revision__snapshot__downtime_severities",
        "reservation__request__handoff_terms__downtime_severities",
    )
    for row in incidents:
        provider, start, end = windows[row["reservation_id"]]
        severities = _first_set(
            row["terms_revision__snapshot__downtime_severities"],
            row["reservation__request__handoff_terms__downtime_severities"],
            STANDARD["downtime_severities"],
        )
        if row["severity"] not in severities or not start <= row["opened_at"] < end:
            continue
        tally = tallies[provider]
        tally.incidents += 1
        if row["closed_at"] is None or row["closed_at"] >= as_of:
            continue
        tally.closed += 1
        for samples, value in (
            (tally.detection, _seconds(row["failed_at"] or row["opened_at"], row["responded_at"])),
            (tally.repair, _seconds(row["responded_at"], row["restored_at"])),
            (tally.revalidation, _seconds(row["restored_at"], row["revalidated_at"])),
        ):
            if value is not None:
                samples.append(value)


def _first_set(*values: Any) -> Any:
    """The first value that is set: terms agreeing that no severity counts ([]) are kept."""
    return next(v for v in values if v is not None)


def history_fingerprint(histories: Mapping[int, ProviderHistory]) -> dict[str, Any]:
    """What of the record scoring reads, keyed by provider id, for the inputs' fingerprint."""
    return {str(k): to_jsonable(v) for k, v in sorted(histories.items())}
