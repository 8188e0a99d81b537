"""The Observed page: both parties upload, each file is stored before it is read, a file that
cannot be read says where and can be retried, and the page shows the worked example's figures."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.urls import reverse

from audit.models import AuditEntry
from contracts.defaults import STANDARD
from engine.failures import terms_clocks
from incidents.models import Incident
from observed.models import ObservedState, ObservedUpload
from observed.selectors import observed_report
from tests.incidents.helpers import media_root
from tests.observed.helpers import (
    data_file,
    page_text,
    upload_worked_example,
    worked_reservation,
)

__all__ = ["media_root"]

pytestmark = pytest.mark.django_db


@pytest.fixture
def reservation(buyer: Any, provider: Any, media_root: Any) -> Any:
    return worked_reservation(buyer, provider)


def test_the_page_shows_capacities_receipts_misses_and_cost(
    reservation, buyer, provider, client, django_capture_on_commit_callbacks
):
    upload_worked_example(reservation, buyer, provider, django_capture_on_commit_callbacks)
    assert set(ObservedUpload.objects.values_list("state", flat=True)) == {ObservedState.DONE}
    client.force_login(buyer.user)
    response = client.get(reverse("observed:page", args=[reservation.pk]))
    text = page_text(response)
    assert "2026-03-02 16.00 16.00 12.00 13.53" in text
    assert "2026-03-03 16.00 14.00 14.00 4.00" in text
    assert "Observed: p50 10 min, p95 45 min" in text
    assert (
        "Time to running (p95): promised 30 min; observed 45.00 min for job-pretrain-b-9d1e4"
        in text
    )
    assert "Health-check cadence" in text and "Contracted capacity allocatable" in text
    # No incident, so nothing credited: 16 GPUs × 48 h × $2.50 paid, over 391 accepted steps.
    assert "$1,920.00 paid after credits ÷ 391 accepted training steps = $4.9105" in text
    assert "10 replayed, 5 rejected" in text
    assert 'id="observed-capacities-data"' in response.content.decode()


def test_a_file_that_cannot_be_read_is_kept_with_its_line_and_retried(
    reservation, provider, client, django_capture_on_commit_callbacks
):
    client.force_login(provider.user)
    url = reverse("observed:page", args=[reservation.pk])
    bad = data_file("results.csv", b"time,step\n2026-03-02T00:06:00Z,one\n")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"kind": "results", "file": bad})
    assert response.status_code == 302
    row = ObservedUpload.objects.get()
    assert (row.state, row.error_line, row.error_field) == ("error", 2, "step")
    assert row.read_bytes().startswith(b"time,step")  # stored as sent
    text = page_text(client.get(url))
    assert "results.csv, line 2, field step: 'one' is not a whole number" in text
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("observed:retry", args=[row.pk]))
    assert response.status_code == 302
    assert AuditEntry.objects.filter(action="observed.retry", party="provider").exists()
    row.refresh_from_db()
    assert row.state == "error" and row.attempts == 2


def test_an_upload_without_a_kind_keeps_the_form_and_says_so(reservation, provider, client):
    client.force_login(provider.user)
    url = reverse("observed:page", args=[reservation.pk])
    response = client.post(url, {"kind": "", "file": data_file("results.csv")})
    assert response.status_code == 400
    assert "This field is required." in page_text(response)
    assert not ObservedUpload.objects.exists()


def test_only_the_buyer_names_the_result(reservation, buyer, provider, client):
    client.force_login(provider.user)
    url = reverse("observed:result", args=[reservation.pk])
    response = client.post(url, {"unit": "step", "expected_per_gpu_hour": "1.25"}, follow=True)
    assert "Only the buyer can do this: Name the result the cost is counted in." in page_text(
        response
    )
    assert not AuditEntry.objects.filter(action="observed.result").exists()
    client.force_login(buyer.user)
    client.post(url, {"unit": "run", "expected_per_gpu_hour": ""})
    entry = AuditEntry.objects.get(action="observed.result")
    assert entry.party == "buyer" and entry.after["unit"] == "run"


def test_uploads_are_recorded_with_the_party(
    reservation, buyer, provider, django_capture_on_commit_callbacks
):
    upload_worked_example(reservation, buyer, provider, django_capture_on_commit_callbacks)
    parties = set(
        AuditEntry.objects.filter(action="observed.upload").values_list("party", flat=True)
    )
    assert parties == {"buyer", "provider"}


def test_a_packet_gathers_the_incident_of_its_window(
    reservation, buyer, provider, django_capture_on_commit_callbacks
):

    upload_worked_example(reservation, buyer, provider, django_capture_on_commit_callbacks)
    Incident.objects.create(
        reservation=reservation, severity="S3", proposed_severity="S3", nodes=["gpu-node-b"],
        opened_at=datetime(2026, 3, 2, 12, 5, tzinfo=UTC),
        restored_at=datetime(2026, 3, 3, 6, tzinfo=UTC), summary="Xid 79 on gpu-node-b",
        clocks=terms_clocks(STANDARD),
    )  # fmt: skip
    packets = observed_report(reservation=reservation).packets
    by_promise = {p.miss.promise: [i.summary for i in p.incidents] for p in packets}
    assert by_promise == {
        "Time to running (p95)": [],
        "Health-check cadence": ["Xid 79 on gpu-node-b"],
        "Contracted capacity allocatable": ["Xid 79 on gpu-node-b"],
    }
