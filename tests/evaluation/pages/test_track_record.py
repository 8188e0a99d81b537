"""A provider's recorded track record feeds its bids' scores: every buyer's accepted reservations
with it count, the comparison says how much record a figure rests on, and never whose it was."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from acceptance.models import Reservation
from bids.models import CapacityRequest
from bids.services import bid_submit
from evaluation import comparison
from evaluation.history import provider_histories
from evaluation.services import scoring_fingerprint
from incidents.models import Incident
from incidents.selectors import terms_for
from tests.evaluation.pages.conftest import add_bids, score
from tests.factories import BidFactory, CapacityRequestFactory
from tests.incidents.helpers import accept

pytestmark = pytest.mark.django_db

MIDNIGHT = datetime.combine(timezone.now().astimezone(UTC).date(), time.min, tzinfo=UTC)


@pytest.fixture(autouse=True)
def media_root(settings: Any, tmp_path: Path) -> Path:
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def past_reservation(buyer: Any, provider: Any, *, days: int, title: str) -> Reservation:
    """An accepted reservation of 2 nodes whose clock started `days` days ago at 00:00 UTC and
    runs another month: 48 node-hours a day until today."""
    req = CapacityRequestFactory(buyer=buyer.org, title=title)
    bid = BidFactory(request=req, provider=provider.org)
    bid_submit(bid=bid, user=provider.user)
    bid.refresh_from_db()
    reservation = accept(SimpleNamespace(request=req, bid=bid), buyer, provider).reservation
    Reservation.objects.filter(pk=reservation.pk).update(
        clock_starts_at=MIDNIGHT - timedelta(days=days)
    )
    CapacityRequest.objects.filter(pk=req.pk).update(
        reservation_end=MIDNIGHT.date() + timedelta(days=30)
    )
    reservation.refresh_from_db()
    return reservation


def incident(reservation: Reservation, *, days_ago: float, severity: str = "S1") -> Incident:
    """Closed: first response after 20 min, restored 2 h later, revalidated 1 h after that."""
    opened = MIDNIGHT - timedelta(days=days_ago)
    restored = opened + timedelta(minutes=20, hours=2)
    return Incident.objects.create(
        reservation=reservation,
        severity=severity,
        proposed_severity=severity,
        terms_revision=terms_for(reservation)[0],
        opened_at=opened,
        responded_at=opened + timedelta(minutes=20),
        restored_at=restored,
        revalidated_at=restored + timedelta(hours=1),
        closed_at=restored + timedelta(hours=2),
    )


def page(client: Any, req: CapacityRequest) -> str:
    response = client.get(reverse("evaluation:request-compare", args=[req.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_record_counts_every_buyers_reservations_and_downtime_incidents(
    buyer, outsider, provider
):
    own = past_reservation(buyer, provider, days=250, title="Helix pre-training")
    theirs = past_reservation(outsider, provider, days=100, title="Other Buyer fine-tune")
    incident(own, days_ago=200)
    incident(own, days_ago=10, severity="S3")
    incident(theirs, days_ago=50)
    incident(theirs, days_ago=40, severity="S2")  # degraded, not down: the terms leave it out
    incident(theirs, days_ago=-1)  # after the record is read: not yet

    record = provider_histories(provider_ids=[provider.org.pk], as_of=MIDNIGHT)[provider.org.pk]

    assert record.reservations == 2
    assert record.node_hours == 2 * 24 * (250 + 100)
    assert record.incidents == 3 and record.closed_incidents == 3
    assert record.detection.median_seconds == 20 * 60
    assert record.repair.median_seconds == 2 * 3600
    assert record.revalidation.median_seconds == 3600


def test_the_realised_mtbf_takes_over_on_the_page_once_the_record_is_long_enough(
    world, buyer, outsider, provider
):
    # 100 days of 2 nodes with a rival buyer: 4,800 node-hours, below the 10,000 minimum.
    theirs = past_reservation(outsider, provider, days=100, title="Other Buyer fine-tune")
    incident(theirs, days_ago=50)
    score(world.request)
    html = page(buyer.client(), world.request)
    assert "record too short to count: 1 reservation, 4,800 node-hours, 1 incident" in html
    assert '<span class="tag" title="realised' not in html

    # 150 more days with this buyer: 12,000 node-hours in all, so the record now counts.
    past_reservation(buyer, provider, days=150, title="Helix pre-training")
    assert comparison.comparison_state(capacity_request=world.request)[0] == comparison.OUTDATED
    score(world.request)
    html = page(buyer.client(), world.request)

    provenance = "realised, 2 reservations, 12,000 node-hours, 1 incident"
    assert provenance in html
    assert f'<span class="tag" title="{provenance}">realised</span>' in html
    assert 'Bids marked <span class="tag">realised</span>' in html
    # The rival buyer's reservation counts, but nothing says whose it was.
    assert "Other Buyer" not in html and "fine-tune" not in html
    csv = buyer.client().get(reverse("evaluation:request-compare-csv", args=[world.request.pk]))
    body = csv.content.decode("utf-8-sig")
    assert provenance in body and "Other Buyer" not in body


def test_a_new_incident_changes_the_scoring_fingerprint(world, buyer, provider):
    reservation = past_reservation(buyer, provider, days=250, title="Helix pre-training")
    before = scoring_fingerprint(capacity_request=world.request)
    incident(reservation, days_ago=3)
    assert scoring_fingerprint(capacity_request=world.request) != before


def test_the_record_is_read_in_the_same_queries_for_2_and_200_bids(world, buyer, provider):
    past_reservation(buyer, provider, days=250, title="Helix pre-training")

    def count() -> int:
        with CaptureQueriesContext(connection) as ctx:
            scoring_fingerprint(capacity_request=world.request)
        return len(ctx.captured_queries)

    small = count()
    add_bids(world.request, 198)
    assert count() == small


def test_the_buyers_interval_is_scored_and_the_optimum_kept_on_the_chart(world, buyer):
    CapacityRequest.objects.filter(pk=world.request.pk).update(checkpoint_interval_minutes=60)
    world.request.refresh_from_db()
    score(world.request)
    view = comparison.comparison_for_buyer(capacity_request=world.request)
    for curve in view.charts["curves"]:
        assert curve["chosen"][0] == 60.0
        assert curve["optimum"] is not None and curve["optimum"][0] != 60.0
        assert curve["optimum"][1] > curve["chosen"][1]
    html = page(buyer.client(), world.request)
    assert "the buyer&#x27;s interval, 60 min, from the request" in html
    assert "yours, every 60 min" in html
