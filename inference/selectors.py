"""Reads: a reservation's served-responses files, and the promise and rate they are measured
against (the awarded revision's inference envelope and price)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.http import Http404

from acceptance.models import Reservation
from bids.models import BidTerms
from engine.inference import Promise, ServedResponsesError, parse_served, served_outcome
from engine.inference.misses import InferenceMiss, inference_misses
from inference.models import ServedResponsesFile, ServedState


def _float(value: Decimal | int | None) -> float | None:
    return None if value is None else float(value)


def promise_of(terms: BidTerms) -> Promise:
    return Promise(
        concurrency=terms.inference_concurrency,
        ttft_p50_ms=_float(terms.ttft_p50_ms),
        ttft_p95_ms=_float(terms.ttft_p95_ms),
        itl_p50_ms=_float(terms.itl_p50_ms),
        itl_p95_ms=_float(terms.itl_p95_ms),
        throughput_tokens_per_s=_float(terms.throughput_tokens_per_s),
        cost_per_million_tokens=terms.cost_per_million_tokens,
    )


def promises_inference(terms: BidTerms) -> bool:
    return any(value is not None for value in vars(promise_of(terms)).values())


def gpus_of(terms: BidTerms) -> Decimal | None:
    count = terms.gpu_count
    return None if count is None else Decimal(count)


def served_files(*, reservation: Reservation) -> QuerySet[ServedResponsesFile]:
    return ServedResponsesFile.objects.filter(reservation=reservation).select_related("uploaded_by")


def served_file_get(*, reservation: Reservation, pk: int) -> ServedResponsesFile:
    return served_files(reservation=reservation).get(pk=pk)


def latest_read(*, reservation: Reservation) -> ServedResponsesFile | None:
    return served_files(reservation=reservation).filter(state=ServedState.PARSED).first()


def served_file_for(*, org_ids: Iterable[int], pk: int) -> ServedResponsesFile:
    """One file, for a member of either party to its reservation; 404 for anyone else."""
    ids = list(org_ids)
    try:
        return (
            ServedResponsesFile.objects.select_related(
                "reservation__request__buyer", "reservation__bid__provider", "uploaded_by"
            )
            .filter(
                Q(reservation__request__buyer_id__in=ids) | Q(reservation__bid__provider_id__in=ids)
            )
            .get(pk=pk)
        )
    except ServedResponsesFile.DoesNotExist:
        raise Http404 from None


@dataclass(frozen=True)
class ServedReading:
    """A read file's figures against the promise, and a packet per promise it missed."""

    row: ServedResponsesFile
    figures: dict[str, Any]
    misses: tuple[InferenceMiss, ...]
    error: str = ""


def served_readings(
    *, reservation: Reservation, start: datetime | None = None, end: datetime | None = None
) -> list[ServedReading]:
    """The read files uploaded in [start, end), oldest first, each read again from its stored
    bytes so that its packets can name the requests behind each miss."""
    revision = reservation.bid_revision
    rows = served_files(reservation=reservation).filter(state=ServedState.PARSED)
    if start is not None:
        rows = rows.filter(uploaded_at__gte=start)
    if end is not None:
        rows = rows.filter(uploaded_at__lt=end)
    out = []
    for row in rows.order_by("uploaded_at", "pk"):
        try:
            served = parse_served(row.read_bytes())
        except ServedResponsesError as exc:  # read once; a later parser refuses it
            out.append(ServedReading(row, row.outcome or {}, (), exc.message))
            continue
        except OSError as exc:  # the stored bytes are gone: the figures stand, no packet
            out.append(ServedReading(row, row.outcome or {}, (), f"Cannot open the file: {exc}"))
            continue
        outcome = served_outcome(
            served=served,
            promise=promise_of(revision),
            price_per_gpu_hour=revision.price_per_gpu_hour,
            gpus=gpus_of(revision),
        )
        misses = inference_misses(served=served, outcome=outcome)
        out.append(ServedReading(row, outcome.as_json(), misses))
    return out


def served_counts(*, reservation: Reservation) -> dict[str, int]:
    """The reservation's files by state, every state named (0 where none)."""
    rows = ServedResponsesFile.objects.filter(reservation=reservation).values("state")
    found = {r["state"]: r["n"] for r in rows.annotate(n=Count("pk")).order_by()}
    return {state: found.get(state, 0) for state in ServedState.values}
