"""What the in-service demo reservation's workload went through, and who hears of it.

- Observed: Helix uploads two days of its Slurm job records, four node snapshots and its
  results file, and names the result it pays for, so the Observed page charts the four
  capacities, the start receipts and the cost per accepted result.
- Inference: Aurora's vLLM serving benchmark run on the same nodes, read against the offer.
- Webhooks: Helix's endpoint for incident and maintenance events, left disabled: its address
  is an `.invalid` host that no delivery could reach, and the seed never sends.

The sample files (demo/data/) are real tools' formats; their timestamps are moved, whole days
at a time, into the reservation's term so the pages show them as this term's history. Running
it twice changes nothing; the files are read once the seed commits.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction

from acceptance.models import Reservation
from inference.models import ServedResponsesFile
from inference.services import served_upload
from observed.models import ObservedKind, ObservedUpload, ResultUnit
from observed.services import observed_upload, result_define
from webhooks.models import Endpoint
from webhooks.services.endpoints import endpoint_create, endpoint_update

DATA = Path(__file__).resolve().parent / "data"
# The samples' first working day, and how far into the term the demo places it.
SAMPLE_DAY = date(2026, 3, 2)
DAYS_INTO_TERM = 30
OBSERVED_FILES = [
    ("sacct-parsable2.txt", ObservedKind.SACCT),
    ("nodes-2026-03-02T0000.json", ObservedKind.KUBE_NODES),
    ("nodes-2026-03-02T1200.json", ObservedKind.KUBE_NODES),
    ("nodes-2026-03-03T0000.json", ObservedKind.KUBE_NODES),
    ("nodes-2026-03-03T0600.json", ObservedKind.KUBE_NODES),
    ("results.csv", ObservedKind.RESULTS),
]
SERVED_FILE = "vllm_bench_serve.json"
WEBHOOK_URL = "https://hooks.helix-labs.invalid/clusterbid"
WEBHOOK_EVENTS = ["incident_opened", "maintenance_announced"]
ISO_DAY = re.compile(r"\b(20\d\d)-(\d\d)-(\d\d)(?=[T ])")


def shifted(text: str, days: int) -> str:
    """`text` with every ISO date-time moved by `days` whole days (times of day unchanged)."""

    def move(match: re.Match[str]) -> str:
        day = date(int(match[1]), int(match[2]), int(match[3])) + timedelta(days=days)
        return day.isoformat()

    return ISO_DAY.sub(move, text)


@transaction.atomic
def seed_outcomes_demo(reservation: Reservation | None) -> None:
    """On the accepted delivery demo reservation: observed files, a served-responses file and
    the buyer's disabled webhook endpoint, each made once."""
    users = get_user_model().objects
    buyer_user = users.filter(username="alice").first()
    provider_user = users.filter(username="arun").first()
    if (
        reservation is None
        or reservation.clock_starts_at is None
        or not (buyer_user and provider_user)
    ):
        return
    first = reservation.clock_starts_at.date() + timedelta(days=DAYS_INTO_TERM)
    days = (first - SAMPLE_DAY).days
    if not ObservedUpload.objects.filter(reservation=reservation).exists():
        for name, kind in OBSERVED_FILES:
            text = shifted((DATA / "observed" / name).read_text(), days)
            # A snapshot's file name carries its time: it moves with the contents.
            upload = SimpleUploadedFile(shifted(name, days), text.encode())
            observed_upload(reservation=reservation, user=buyer_user, upload=upload, kind=kind)
        result_define(
            reservation=reservation,
            user=buyer_user,
            unit=ResultUnit.STEP,
            expected_per_gpu_hour=Decimal("0.55"),
        )
    if not ServedResponsesFile.objects.filter(reservation=reservation).exists():
        upload = SimpleUploadedFile(SERVED_FILE, (DATA / "inference" / SERVED_FILE).read_bytes())
        served_upload(
            reservation=reservation, user=provider_user, upload=upload, label="vLLM serve bench"
        )
    organization = reservation.request.buyer
    if not Endpoint.objects.filter(organization=organization, url=WEBHOOK_URL).exists():
        endpoint, _secret = endpoint_create(
            organization=organization,
            user=buyer_user,
            url=WEBHOOK_URL,
            events=WEBHOOK_EVENTS,
            description="Helix on-call bridge (demo: an unreachable address, kept disabled)",
        )
        endpoint_update(
            endpoint=endpoint,
            user=buyer_user,
            url=WEBHOOK_URL,
            events=WEBHOOK_EVENTS,
            active=False,
            description=endpoint.description,
        )
