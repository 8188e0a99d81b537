"""Reads: a reservation's served-responses files, and the promise and rate they are measured
against (the awarded revision's inference envelope and price)."""

from __future__ import annotations

from decimal import Decimal

from django.db.models import QuerySet

from acceptance.models import Reservation
from bids.models import BidTerms
from engine.inference import Promise
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
