"""The outcome report: rendered like the monthly statement from the worked example of
docs/observed-outcomes.md, read back from the PDF bytes, with the diagnostic packet of the
planted miss (workload b running 45 min after its submit against a promised p95 of 30)."""

from __future__ import annotations

import io
import re
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.test import TestCase
from django.urls import reverse
from pypdf import PdfReader

from annexes.models import Annex, AnnexKind
from annexes.services import annex_request
from delivery.changes import change_announce, change_window_open
from delivery.services import maintenance_announce
from observed.selectors import observed_report
from tests.observed.helpers import upload_worked_example, worked_reservation

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def _report(reservation, user, period: str = "") -> Annex:
    with TestCase.captureOnCommitCallbacks(execute=True):
        job = annex_request(
            capacity_request=reservation.request, kind=AnnexKind.OUTCOME, user=user, period=period
        )
    job.refresh_from_db()
    assert job.status == "done", job.error
    assert job.annex is not None
    return job.annex


def _text(annex: Annex) -> str:
    with annex.pdf.open("rb") as handle:
        reader = PdfReader(io.BytesIO(handle.read()))
    return re.sub(r"\s+", " ", " ".join(page.extract_text() for page in reader.pages))


def test_the_report_carries_the_packet_of_the_planted_miss(
    buyer, provider, django_capture_on_commit_callbacks
):
    reservation = worked_reservation(buyer, provider)
    upload_worked_example(reservation, buyer, provider, django_capture_on_commit_callbacks)
    annex = _report(reservation, provider.user)
    text = _text(annex)
    assert "Outcome report — term to date" in text
    assert "Time to running, p95 30 min 45 min (1 of 3 jobs over)" in text
    assert "2026-03-02 16.00 16.00 12.00 13.53" in text
    assert "2026-03-03 16.00 14.00 14.00 4.00" in text
    assert "$1,920.00 paid after credits ÷ 391 accepted training steps = $4.9105" in text
    # The packet: which promise, the evidence rows with their file and line, the node.
    assert "Miss 1: Time to running (p95)" in text
    assert "45.00 min for job-pretrain-b-9d1e4" in text
    assert "insufficient unused quota for nvidia.com/gpu" in text
    assert "(kueue-workloads-events.json:631)" in text  # the Pending event's file and line
    assert "gpu-node-b" in text
    assert "Miss 2: Health-check cadence" in text and "GpuUnhealthy (XidCriticalError)" in text
    assert annex.filename == f"outcome-request{reservation.request_id}-term-v1.pdf"
    # The period is closed: generating again issues nothing new.
    assert _report(reservation, buyer.user).pk == annex.pk


def test_a_month_and_a_month_outside_the_term(buyer, provider, django_capture_on_commit_callbacks):
    reservation = worked_reservation(buyer, provider)
    upload_worked_example(reservation, buyer, provider, django_capture_on_commit_callbacks)
    text = _text(_report(reservation, buyer.user, "2026-03"))
    assert "Outcome report — 2026-03" in text and "Miss 1: Time to running (p95)" in text
    with pytest.raises(ValidationError, match="no month '2026-04'"):
        annex_request(capacity_request=reservation.request, kind=AnnexKind.OUTCOME,
                      user=buyer.user, period="2026-04")  # fmt: skip


def test_the_annex_page_offers_the_report_to_both_parties(buyer, provider, client):
    reservation = worked_reservation(buyer, provider)
    for party in (buyer, provider):
        client.force_login(party.user)
        page = client.get(reverse("annexes:list", args=[reservation.request_id]))
        assert "Generate the outcome report" in page.content.decode()


def test_a_miss_packet_lists_the_planned_changes_of_its_window(
    buyer, provider, django_capture_on_commit_callbacks
):
    """A driver change rolled out inside the first miss's window without a passing canary (none
    was uploaded) is in that miss's packet with the canary's verdict, and in no packet whose
    window it misses."""
    reservation = worked_reservation(buyer, provider)
    upload_worked_example(reservation, buyer, provider, django_capture_on_commit_callbacks)
    miss = observed_report(reservation=reservation).packets[0].miss
    announced = miss.start - timedelta(days=5)
    window = maintenance_announce(
        reservation=reservation, user=provider.user, starts_at=miss.start,
        ends_at=miss.start + timedelta(minutes=30), reason="Driver", now=announced,
    )  # fmt: skip
    driver = change_announce(
        reservation=reservation, user=provider.user, window=window, kind="driver",
        component="NVIDIA driver", from_version="560.35.03", to_version="570.124.06",
        canary_nodes="gpu-node-a", now=announced,
    )  # fmt: skip
    change_window_open(change=driver, now=miss.start)

    packets = observed_report(reservation=reservation).packets
    overlapping = [p.miss.start <= window.ends_at and p.miss.end >= window.starts_at
                   for p in packets]  # fmt: skip
    assert [bool(p.changes) for p in packets] == overlapping and overlapping[0]
    text = _text(_report(reservation, buyer.user))
    assert "Miss 1: planned changes of the window" in text
    assert f"{driver.pk} GPU driver NVIDIA driver: 560.35.03 → 570.124.06" in text
    assert "waiting on gpu-node-a without a passing canary" in text
