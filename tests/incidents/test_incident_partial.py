"""S3, one node out while the job runs on: the node out, its restore, the restart on fewer
nodes; lost time is the missing node's GPUs × the outage, not the whole cluster's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from audit.models import AuditEntry
from incidents import services
from incidents.models import Signal
from incidents.selectors import partial_lost_time
from incidents.services import opening
from tests.incidents.helpers import term_from

pytestmark = pytest.mark.django_db

OUT = datetime(2026, 11, 4, 10, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _term_from_november(accepted):
    """The term runs from 1 Nov, so the node that goes out on 4 Nov lies inside it."""
    term_from(accepted.reservation, datetime(2026, 11, 1, tzinfo=UTC))


@pytest.fixture
def s3(accepted, provider):
    return opening.incident_open_signal(
        reservation=accepted.reservation,
        user=provider.user,
        severity="S3",
        nodes="gpu-a02",
        window_start=OUT,
        signal=Signal.DRAINED_NODE,
        summary="gpu-a02 drained: ECC errors; the job goes on with one node.",
    )


def test_lost_time_counts_only_the_missing_nodes_gpus(s3, buyer, provider):
    assert partial_lost_time(s3)["missing"] == ["the restore"]
    services.incident_mark(
        incident=s3, user=provider.user, what="restored", now=OUT + timedelta(hours=3, minutes=30)
    )
    lost = partial_lost_time(s3)["result"]
    # 1 node × 8 GPUs × 3.5 h, where the whole 2-node cluster would be 56 GPU-h.
    assert lost["gpu_hours"] == 28.0 and lost["gpus"] == 8 and lost["outage_hours"] == 3.5
    html = buyer.client().get(reverse("incidents:incident-detail", args=[s3.pk])).content.decode()
    assert "<strong>28.0 GPU-h</strong>" in html
    assert (
        "1 node × 8 GPUs × 3.50 h (2026-11-04 10:00 UTC → 2026-11-04 13:30 UTC) = 28.0 GPU-h"
        in html
    )


def test_the_restart_on_fewer_nodes_is_recorded(s3, buyer):
    at = OUT + timedelta(minutes=40)
    opening.incident_fewer_nodes(incident=s3, user=buyer.user, at=at, continuing_nodes=1)
    s3.refresh_from_db()
    assert (s3.fewer_nodes_at, s3.continuing_nodes) == (at, 1)
    entry = AuditEntry.objects.get(obj_key=f"incident:{s3.pk}", action="incident.fewer_nodes")
    assert entry.after["continuing_nodes"] == 1
    html = buyer.client().get(reverse("incidents:incident-detail", args=[s3.pk])).content.decode()
    assert "The job restarted on 1 node at 2026-11-04 10:40 UTC." in html


def test_a_bad_restart_keeps_what_was_typed(s3, provider):
    page = provider.client().post(
        reverse("incidents:incident-fewer-nodes", args=[s3.pk]),
        {"at": "2026-11-04 10:40", "continuing_nodes": "2"},
    )
    html = page.content.decode()
    assert page.status_code == 200 and "Fewer than the reservation&#x27;s 2 nodes" in html
    assert 'value="2026-11-04 10:40"' in html
    with pytest.raises(ValidationError, match="before the node went out"):
        opening.incident_fewer_nodes(
            incident=s3, user=provider.user, at=OUT - timedelta(hours=1), continuing_nodes=1
        )


def test_only_an_s3_records_a_restart_on_fewer_nodes(accepted, provider):
    s1 = opening.incident_open_signal(
        reservation=accepted.reservation, user=provider.user, severity="S1", nodes="gpu-a02",
        window_start=OUT, signal=Signal.ALERT, summary="Job down.",
    )  # fmt: skip
    with pytest.raises(ValidationError, match="recorded on an S3"):
        opening.incident_fewer_nodes(incident=s1, user=provider.user, at=OUT, continuing_nodes=1)
