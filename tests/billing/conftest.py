"""An accepted reservation with a known term, rate, fees and egress, for reconciliation tests:
clock started 1 March 2026 06:00 UTC, term to 31 May (included), 2 nodes × 8 GPUs (gpu-b01 and
gpu-b02, where the burn-in ran) at 2.50 USD per GPU-hour, 1,000 USD fees and 500 USD egress over
the term."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from bids.services import bid_save_draft, bid_submit
from tests.incidents.helpers import Accepted, accept, accepted, media_root

DATA = Path(__file__).resolve().parent / "data"
CLOCK = datetime(2026, 3, 1, 6, 0, tzinfo=UTC)
NODES = ("gpu-b01", "gpu-b02")

__all__ = ["accepted", "media_root"]


@pytest.fixture
def contracted(world: Any, buyer: Any, provider: Any) -> Accepted:
    money = {
        "price_per_gpu_hour": Decimal("2.50"),
        "fees_usd": Decimal("1000"),
        "egress_usd": Decimal("500"),
    }
    bid_save_draft(bid=world.bid, user=provider.user, data=money)
    bid_submit(bid=world.bid, user=provider.user)  # the revision the award pins
    accepted = accept(world, buyer, provider)
    reservation = accepted.reservation
    reservation.clock_starts_at = CLOCK
    reservation.save(update_fields=["clock_starts_at"])
    request = reservation.request
    request.reservation_start, request.reservation_end = date(2026, 3, 1), date(2026, 5, 31)
    request.save(update_fields=["reservation_start", "reservation_end"])
    assert reservation.bid_revision.price_per_gpu_hour == Decimal("2.50")
    # The usage files bill gpu-b01 and gpu-b02: the hand-over burn-in ran on those two nodes.
    baseline = reservation.baseline
    for row in baseline.snapshot["nccl"]:
        row["hosts"] = list(NODES)
    baseline.save(update_fields=["snapshot"])
    return accepted


def usage_file(name: str, content: bytes | None = None) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content if content is not None else (DATA / name).read_bytes())


def upload_and_map(reservation: Any, user: Any, upload: SimpleUploadedFile, capture: Any) -> Any:
    """Upload as the user, confirm the guessed mapping, run the reconciliation."""
    from billing import services
    from billing.models import UsageUpload
    from engine.billing import Mapping

    with capture(execute=True):
        row = services.usage_upload(reservation=reservation, user=user, upload=upload)
    row.refresh_from_db()
    if row.state == "mapping":
        guess = Mapping.from_json(row.mapping)
        with capture(execute=True):
            services.usage_map(
                upload=row,
                user=user,
                columns=guess.columns,
                unit=guess.unit,
                date_format=guess.date_format,
            )
    return UsageUpload.objects.get(pk=row.pk)
