"""An accepted inference reservation: docs/inference-outcomes.md's worked example, 4 nodes × 8
GPUs at $4.50/GPU-h, whose offer promises TTFT p50 120 / p95 300 ms and inter-token p50 30 /
p95 50 ms at a concurrency of 4, 8 tokens/s and $900 per million output tokens."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile

from acceptance.models import Reservation
from tests.delivery.helpers import example_reservation

DATA = Path(__file__).resolve().parents[1] / "data" / "inference"
INFERENCE_TERMS: dict[str, Any] = {
    "price_per_gpu_hour": Decimal("4.50"),
    "inference_concurrency": 4,
    "ttft_p50_ms": Decimal("120"),
    "ttft_p95_ms": Decimal("300"),
    "itl_p50_ms": Decimal("30"),
    "itl_p95_ms": Decimal("50"),
    "throughput_tokens_per_s": 8,
    "cost_per_million_tokens": Decimal("900.00"),
}


def inference_reservation(buyer: Any, provider: Any) -> Reservation:
    return example_reservation(buyer, provider, bid_terms=INFERENCE_TERMS)


def upload(name: str, *, content: bytes | None = None) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content if content is not None else (DATA / name).read_bytes())
