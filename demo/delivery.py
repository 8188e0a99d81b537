"""A third demo request, already in service, so the delivery pages have history to show: the
timeline, availability and credits, a reconciled bill, statements and the provider scorecard.

Its past is written as history: the bidding, award and incidents go through the services, then
the term and the acceptance are dated 40 days back (the acceptance gate is not replayed — a demo
cannot run a burn-in in the past). Every later figure is computed by the product as usual.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from acceptance.models import (
    Acceptance,
    BurnInRun,
    DecisionKind,
    Reservation,
    ReservationStatus,
)
from acceptance.services.acknowledgements import acknowledgement_submit
from acceptance.services.award import request_award
from acceptance.services.fixtures import fixture_from_template
from bids import services
from bids.models import Bid, CapacityRequest
from billing.services import usage_map, usage_upload
from contracts.defaults import DEFAULT_TERMS_TEMPLATE
from contracts.services.terms import terms_create
from delivery.services import maintenance_agree, maintenance_announce
from engine.billing import guess_mapping
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from incidents import services as incidents
from incidents.services.opening import incident_open_signal
from orgs.models import Organization

DEMO_TITLE = "16 × H200 in service (delivery demo)"
DAYS_IN = 40  # the term began this many days ago
RATE = Decimal("2.45")


def _at(day: date, hour: int) -> datetime:
    return datetime.combine(day, time(hour), tzinfo=UTC)


def seed_delivery_demo() -> Reservation | None:
    existing = Reservation.objects.filter(request__title=DEMO_TITLE).first()
    if existing is not None:
        return existing
    users = get_user_model().objects
    alice, arun = users.filter(username="alice").first(), users.filter(username="arun").first()
    buyer = Organization.objects.filter(slug="helix-labs").first()
    provider = Organization.objects.filter(slug="aurora-gpu-cloud").first()
    if not (alice and arun and buyer and provider):
        return None
    today = timezone.localdate()
    first_day, last_day = today - timedelta(days=DAYS_IN), today + timedelta(days=49)
    req: CapacityRequest = services.request_create(
        buyer=buyer,
        user=alice,
        data={
            "title": DEMO_TITLE,
            "description": "In service for 40 days: two incidents, agreed maintenance, a bill.",
            "gpu_model": "H200",
            "gpu_count": 16,
            "nodes": 2,
            "gpus_per_node": 8,
            "acceptable_regions": ["eu"],
            "reservation_start": today + timedelta(days=30),
            "reservation_end": today + timedelta(days=119),
            "bid_deadline": timezone.now() + timedelta(days=7),
            "sealed": False,
        },
    )
    fixture_from_template(capacity_request=req, user=alice, template=DEFAULT_TEMPLATE)
    terms_create(capacity_request=req, user=alice, template=DEFAULT_TERMS_TEMPLATE)
    services.request_invite(capacity_request=req, user=alice, providers=[provider])
    services.request_publish(capacity_request=req, user=alice)
    bid = services.bid_start(capacity_request=req, provider=provider, user=arun)
    services.bid_save_draft(
        bid=bid,
        user=arun,
        data={"price_per_gpu_hour": str(RATE), "region": "eu", "site": "Helsinki HEL-2",
              "gpu_model": "H200", "nodes": 2, "gpus_per_node": 8,
              "egress_usd": "400", "fees_usd": "1500"},
    )  # fmt: skip
    services.bid_submit(bid=Bid.objects.get(pk=bid.pk), user=arun)
    acknowledgement_submit(bid=bid, user=arun, status="accepted",
                           provider_owner_name="Aurora NOC duty manager",
                           provider_owner_contact="noc@aurora-gpu-cloud.example")  # fmt: skip
    services.request_close(capacity_request=req, user=alice, confirmed=True)
    reservation = request_award(capacity_request=req, bid=Bid.objects.get(pk=bid.pk), user=alice)
    _accepted_in_the_past(reservation, alice, first_day, last_day)
    _history(reservation, alice, arun, first_day)
    return reservation


def _accepted_in_the_past(reservation: Reservation, user: Any, first: date, last: date) -> None:
    CapacityRequest.objects.filter(pk=reservation.request_id).update(
        reservation_start=first, reservation_end=last
    )
    start = _at(first, 0)
    run = BurnInRun.objects.create(reservation=reservation, label="Burn-in 1", created_by=user)
    Acceptance.objects.create(
        reservation=reservation, run=run, kind=DecisionKind.ACCEPTED, by=user, at=start,
        gate_passed=True, reason="Demo history: accepted on the term's first day.",
    )  # fmt: skip
    Reservation.objects.filter(pk=reservation.pk).update(
        status=ReservationStatus.ACCEPTED, clock_starts_at=start
    )
    reservation.refresh_from_db()


def _history(reservation: Reservation, alice: Any, arun: Any, first: date) -> None:
    s1_day, s3_day, window_day = (
        first + timedelta(days=9),
        first + timedelta(days=22),
        first + timedelta(days=31),
    )
    s1 = incident_open_signal(
        reservation=reservation, user=arun, severity="S1", nodes="hel2-gpu-01 hel2-gpu-02",
        window_start=_at(s1_day, 8), signal="alert", summary="Leaf switch lost power",
        now=_at(s1_day, 8),
    )  # fmt: skip
    incidents.incident_mark(
        incident=s1, user=arun, what="responded", now=_at(s1_day, 8) + timedelta(minutes=10)
    )
    incidents.incident_mark(incident=s1, user=arun, what="restored", now=_at(s1_day, 14))
    incidents.incident_set_times(
        incident=s1, user=arun, last_checkpoint_at=_at(s1_day, 7) + timedelta(minutes=30),
        revalidated_at=_at(s1_day, 14) + timedelta(minutes=30), restarted_at=_at(s1_day, 15),
    )  # fmt: skip
    s3 = incident_open_signal(
        reservation=reservation, user=arun, severity="S3", nodes="hel2-gpu-02",
        window_start=_at(s3_day, 10), signal="drained-node", summary="GPU 5 fell off the bus",
        now=_at(s3_day, 10),
    )  # fmt: skip
    incidents.incident_mark(
        incident=s3, user=arun, what="responded", now=_at(s3_day, 10) + timedelta(minutes=20)
    )
    incidents.incident_mark(incident=s3, user=arun, what="restored", now=_at(s3_day, 21))
    eve = window_day - timedelta(days=1)  # announced the day before: short of the 72 h notice
    window = maintenance_announce(
        reservation=reservation, user=arun, starts_at=_at(window_day, 2),
        ends_at=_at(window_day, 5), nodes="hel2-gpu-01", reason="BMC firmware update",
        now=_at(eve, 9),
    )  # fmt: skip
    if window.short_notice:
        maintenance_agree(window=window, user=alice, now=_at(eve, 11))
    _bill(reservation, arun, first)


def _bill(reservation: Reservation, user: Any, first: date) -> None:
    """The provider's hourly usage export for the first 30 days, one line per node and hour."""
    rows = ["usage_start,usage_end,instance_id,gpu_count,hours,rate_usd,amount_usd,line_type"]
    amount = (RATE * 8).quantize(Decimal("0.01"))
    for hour in range(30 * 24):
        start = _at(first, 0) + timedelta(hours=hour)
        end = start + timedelta(hours=1)
        for node in ("hel2-gpu-01", "hel2-gpu-02"):
            rows.append(f"{start:%Y-%m-%dT%H:%M:%SZ},{end:%Y-%m-%dT%H:%M:%SZ},{node},8,1,"
                        f"{RATE},{amount},gpu")  # fmt: skip
    data = ("\n".join(rows) + "\n").encode()
    upload = usage_upload(
        reservation=reservation, user=user,
        upload=SimpleUploadedFile("aurora-usage.csv", data, content_type="text/csv"),
    )  # fmt: skip
    if upload.state == "mapping":
        mapping = guess_mapping(upload.headers)
        usage_map(upload=upload, user=user, columns=mapping.columns, unit=mapping.unit)
