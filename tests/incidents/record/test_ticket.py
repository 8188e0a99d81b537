"""The seven ticket contents (ids, window, rank map, NCCL output, step times, events, change
log), generated from the record as a copyable text on the page, a ticket.txt download and a
PDF, each with the record's real values; what was never uploaded says so."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from pypdf import PdfReader

from incidents import services
from incidents.services import record
from incidents.ticket import ticket_for
from tests.incidents.helpers import recovery_file, scenario_upload

pytestmark = pytest.mark.django_db
OPENED = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
RANK_MAP = Path(__file__).resolve().parents[2] / "data" / "failures" / "rank_map.csv"
SECTIONS = [
    "1. Identifiers",
    "2. Time window (UTC)",
    "3. Rank-to-node map",
    "4. NCCL output",
    "5. Step times",
    "6. Events",
    "7. Change log",
]


@pytest.fixture
def incident(accepted, buyer, provider, django_capture_on_commit_callbacks) -> Any:
    """A failed run uploaded with its rank-map file, the incident, recovery evidence, the
    response and the restore, an approved workaround and a repair estimate."""
    with django_capture_on_commit_callbacks(execute=True):
        run = services.failed_run_upload(
            reservation=accepted.reservation, user=provider.user, uploads=[scenario_upload()],
            rank_map=SimpleUploadedFile("rank_map.csv", RANK_MAP.read_bytes()),
            label="pretrain-7b job 4242",
        )  # fmt: skip
    run.refresh_from_db()
    incident = services.incident_open(failed_run=run, user=buyer.user, now=OPENED)
    for kind, name in (
        ("nccl-tests", "nccl_all_reduce_recovered.txt"),
        ("pre-steps", "pre_incident_steps.csv"),
        ("step-log", "train_steps.log"),
    ):
        services.incident_evidence_upload(
            incident=incident, user=provider.user, kind=kind, upload=recovery_file(name)
        )
    services.incident_mark(
        incident=incident, user=provider.user, what="responded", now=OPENED + timedelta(minutes=9)
    )
    services.incident_mark(
        incident=incident, user=provider.user, what="restored", now=OPENED + timedelta(hours=3)
    )
    entry = record.change_propose(
        incident=incident, user=provider.user, kind="workaround",
        what="Run on 31 nodes without node-17", checks_rerun="all_reduce_perf, 16 ranks",
        now=OPENED + timedelta(minutes=40),
    )  # fmt: skip
    record.change_decide(
        incident=incident, user=buyer.user, entry=entry, approve=True,
        now=OPENED + timedelta(minutes=45),
    )  # fmt: skip
    record.estimate_post(
        incident=incident, user=provider.user, cause_class="gpu", parts=["H200 SXM5 GPU"],
        eta=OPENED + timedelta(hours=3), confidence="high", now=OPENED + timedelta(minutes=30),
    )  # fmt: skip
    incident.refresh_from_db()
    return incident


def _expected(incident: Any) -> dict[str, list[str]]:
    """A real value of each of the seven, from the record itself."""
    reservation = incident.reservation
    return {
        "ids": [
            f"Incident: #{incident.pk}",
            f"Reservation: #{reservation.pk}",
            f"Request: #{reservation.request.pk}",
            f"Bid: #{reservation.bid.pk} (provider Northwind)",
            f"Failed run / job: #{incident.failed_run.pk} “pretrain-7b job 4242”",
        ],
        "window": [
            "First bad step: step 1198 at 2025-03-01 11:58:00",
            "Opened: 2025-03-01 12:00:00 UTC",
            "Restored: 2025-03-01 15:00:00 UTC",
        ],
        "rank_map": ["From rank_map.csv", "node-a: ranks 0-3"],
        "nccl": [
            "GPU has fallen off the bus",
            "rank 137 on node-17",
            "Recovery nccl-tests (nccl_all_reduce_recovered.txt): all_reduce, 16 ranks on "
            "gpu-a01, gpu-a02, NCCL 2.27.3",
        ],
        "step_times": [
            "every step 10 % or more above the baseline for 15 min",
            "Pre-incident median: 1.001 s (pre_incident_steps.csv)",
            "Step log: train_steps.log (first bad step 1198)",
        ],
        "events": [
            "2025-03-01 12:00:00 UTC  opened as S1 by alice",
            "2025-03-01 12:09:00 UTC  responded by nora",
            "2025-03-01 15:00:00 UTC  restored by nora",
            "repair estimate r1 by nora: GPU",
        ],
        "changes": [
            "Workaround [approved]: Run on 31 nodes without node-17",
            "proposed by the provider (nora) at 2025-03-01 12:40:00 UTC",
            "approved by the buyer (alice) at 2025-03-01 12:45:00 UTC",
            "checks rerun: all_reduce_perf, 16 ranks",
        ],
    }


def _section(text: str, number: int) -> str:
    start = text.index(SECTIONS[number])
    end = text.index(SECTIONS[number + 1]) if number + 1 < len(SECTIONS) else len(text)
    return text[start:end]


def test_the_text_holds_the_seven_with_real_values(incident) -> None:
    text = ticket_for(incident).text()
    for number, (key, values) in enumerate(_expected(incident).items()):
        section = _section(text, number)
        for value in values:
            assert value in section, f"{key}: {value!r} not in\n{section}"


def test_what_was_never_uploaded_says_so(analysed, buyer) -> None:
    incident = services.incident_open(failed_run=analysed, user=buyer.user, now=OPENED)
    text = ticket_for(incident).text()
    assert "Rank-map file not uploaded; ranks seen in the logs" in _section(text, 2)
    assert "node-17: ranks 136-143" in _section(text, 2)
    assert "Recovery nccl-tests: not uploaded" in _section(text, 3)
    assert "Step log: not uploaded" in _section(text, 4)
    assert "No configuration change or workaround recorded." in _section(text, 6)


def test_the_page_offers_the_text_to_copy_and_both_downloads(incident, buyer, provider) -> None:
    text = ticket_for(incident).text()
    for role in (buyer, provider):
        html = role.client().get(reverse("incidents:incident-detail", args=[incident.pk]))
        page = html.content.decode()
        area = page[page.index('<textarea id="ticket-text" readonly') :]
        area = area[: area.index("</textarea>")]
        assert "Run on 31 nodes without node-17" in area and "1. Identifiers" in area
        assert 'data-copy="ticket-text"' in page
        assert reverse("incidents:ticket-txt", args=[incident.pk]) in page
        assert reverse("annexes:incident-ticket-pdf", args=[incident.pk]) in page
    download = provider.client().get(reverse("incidents:ticket-txt", args=[incident.pk]))
    assert download["Content-Type"].startswith("text/plain")
    assert f'filename="incident-{incident.pk}-ticket.txt"' in download["Content-Disposition"]
    assert download.content.decode() == text


def test_the_pdf_reads_back_with_the_seven_and_their_values(incident, buyer) -> None:
    response = buyer.client().get(reverse("annexes:incident-ticket-pdf", args=[incident.pk]))
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF")
    reader = PdfReader(io.BytesIO(response.content))
    text = "\n".join(page.extract_text() for page in reader.pages)
    flat = " ".join(text.split())
    for title in SECTIONS:
        assert title in flat
    for key, values in _expected(incident).items():
        for value in values:
            assert " ".join(value.split()) in flat, f"{key}: {value!r} not in the PDF"
