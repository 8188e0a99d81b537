"""The worked example's reservation (docs/observed-outcomes.md): 2 nodes × 8 GPUs at
$2.50/GPU-h, term 2 – 3 March 2026, accepted at the start, with the envelope the document
states. Built through factories and services; the files are tests/data/observed/."""

from __future__ import annotations

import html
import re
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile

from acceptance.models import Acceptance, BurnInRun, DecisionKind, Reservation, ReservationStatus
from acceptance.services.acknowledgements import acknowledgement_submit
from acceptance.services.award import request_award
from acceptance.services.fixtures import fixture_from_template
from bids.models import CapacityRequest
from bids.services import bid_submit, request_close
from contracts.defaults import DEFAULT_TERMS_TEMPLATE
from contracts.models import HandoffTerms
from contracts.services.terms import terms_create, terms_update
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory

DATA = Path(__file__).resolve().parents[1] / "data" / "observed"
START = datetime(2026, 3, 2, tzinfo=UTC)
ENVELOPE = {
    "start_p50_minutes": 10, "start_p95_minutes": 30, "idle_capacity_lent": True,
    "preemptible": True, "reclaim_notice_minutes": 10, "reclaim_effect": "checkpoint_requeue",
    "health_check_minutes": 60, "node_fail_criteria": "DCGM diag failure, XID 79, link down",
}  # fmt: skip


def worked_reservation(buyer: Any, provider: Any) -> Reservation:
    req = CapacityRequestFactory(buyer=buyer.org, sealed=False, nodes=2, gpus_per_node=8)
    InvitationFactory(request=req, provider=provider.org)
    bid = BidFactory(
        request=req, provider=provider.org, nodes=2, gpus_per_node=8,
        price_per_gpu_hour=Decimal("2.50"), fees_usd=Decimal(0), egress_usd=Decimal(0),
        **ENVELOPE,
    )  # fmt: skip
    bid_submit(bid=bid, user=provider.user)
    fixture_from_template(capacity_request=req, user=buyer.user, template=DEFAULT_TEMPLATE)
    terms_create(capacity_request=req, user=buyer.user, template=DEFAULT_TERMS_TEMPLATE)
    terms_update(
        terms=HandoffTerms.objects.get(request=req), user=buyer.user,
        data={"buyer_owner_name": "Ada", "buyer_owner_contact": "ada@example.com"},
    )  # fmt: skip
    bid.refresh_from_db()
    acknowledgement_submit(bid=bid, user=provider.user, status="accepted")
    request_close(capacity_request=req, user=buyer.user, confirmed=True)
    reservation = request_award(capacity_request=req, bid=bid, user=buyer.user)
    CapacityRequest.objects.filter(pk=req.pk).update(
        reservation_start=date(2026, 3, 2), reservation_end=date(2026, 3, 3)
    )
    run = BurnInRun.objects.create(reservation=reservation, label="Burn-in", created_by=buyer.user)
    Acceptance.objects.create(
        reservation=reservation, run=run, kind=DecisionKind.ACCEPTED, by=buyer.user, at=START,
        gate_passed=True,
    )  # fmt: skip
    reservation.status = ReservationStatus.ACCEPTED
    reservation.clock_starts_at = START
    reservation.save(update_fields=["status", "clock_starts_at"])
    return Reservation.objects.select_related("request", "bid_revision").get(pk=reservation.pk)


def data_file(name: str, content: bytes | None = None) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content if content is not None else (DATA / name).read_bytes())


NODE_FILES = (
    "nodes-2026-03-02T0000.json", "nodes-2026-03-02T1200.json", "nodes-2026-03-03T0000.json",
    "nodes-2026-03-03T0600.json",
)  # fmt: skip


def upload_worked_example(
    reservation: Reservation, buyer: Any, provider: Any, capture: Any
) -> None:
    """The provider uploads the scheduler's records and node snapshots, the buyer the results
    and names the accepted training step (1.25 expected per GPU-hour)."""
    from observed import services

    with capture(execute=True):
        _upload_all(reservation, buyer, provider)
    services.result_define(reservation=reservation, user=buyer.user, unit="step",
                           expected_per_gpu_hour=Decimal("1.25"))  # fmt: skip


def _upload_all(reservation: Reservation, buyer: Any, provider: Any) -> None:
    from observed import services

    services.observed_upload(reservation=reservation, user=provider.user, kind="kueue",
                             upload=data_file("kueue-workloads-events.json"))  # fmt: skip
    for name in NODE_FILES:
        services.observed_upload(reservation=reservation, user=provider.user, kind="kube_nodes",
                                 upload=data_file(name))  # fmt: skip
    services.observed_upload(reservation=reservation, user=buyer.user, kind="results",
                             upload=data_file("results.csv"))  # fmt: skip


def page_text(response: Any) -> str:
    """The page's words as a reader sees them: tags dropped, entities read, spaces collapsed."""
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", response.content.decode(), flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())
