"""S2 from per-rank step times, by the terms' definition of degraded: every step of the agreed
window over the agreed rise against the hand-over baseline opens an S2 whose failure time is the
first slow step, with the slowest ranks, their nodes and the rank map on the page and the
ticket; a blip or a shorter rise opens nothing and says so. The file is stored either way."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from pypdf import PdfReader

from acceptance.models import Baseline
from incidents.models import Incident, IncidentEvidence, StepTimesUpload
from incidents.services import opening
from incidents.ticket import ticket_for
from tests.incidents.helpers import DATA, known_nodes

pytestmark = pytest.mark.django_db

STEPS = DATA / "degraded"
SUSTAINED = "steps_8ranks_gpu-a02_sustained_rise.csv"
BLIP = "steps_8ranks_blip_step60.csv"
PLAIN = "train_steps_plain_rank3_rise.csv"


def _file(name: str, folder: Path = STEPS) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, (folder / name).read_bytes(), content_type="text/csv")


def test_a_sustained_rise_opens_an_s2_on_the_slow_node(accepted, provider):
    row = opening.step_times_upload(
        reservation=accepted.reservation, user=provider.user, upload=_file(SUSTAINED)
    )
    incident = Incident.objects.get()
    assert row.incident == incident and incident.severity == "S2"
    assert incident.signal == "step-times" and incident.opened_by_party == "provider"
    # Step 90 at 10:30:00 is the first slow step; every step to 10:45:00 stays +10 % over the
    # hand-over baseline (1.001 s), so the window opens there, and so does the failure.
    first_slow = datetime(2026, 11, 4, 10, 30, tzinfo=UTC)
    assert incident.window_start == incident.failed_at == first_slow
    assert incident.window_end == datetime(2026, 11, 4, 10, 45, tzinfo=UTC)
    assert incident.nodes == ["gpu-a02"]
    found = incident.degraded
    assert (found["threshold_pct"], found["window_minutes"]) == (10.0, 15.0)
    assert [s["rank"] for s in found["slowest"]] == [4, 5, 6, 7]
    assert found["first_step"] == 90 and found["baseline_s"] == 1.001
    assert found["baseline_source"].startswith("hand-over baseline, burn-in run #")
    assert "terms revision" in found["terms_source"]
    assert (incident.window["first_bad_step"], incident.window["last_healthy_step"]) == (90, 89)
    assert incident.window["basis"] == "degraded-step-time"
    evidence = IncidentEvidence.objects.get(incident=incident)
    assert evidence.kind == "rank-steps" and evidence.sha256 == row.sha256
    assert evidence.read_bytes() == (STEPS / SUSTAINED).read_bytes()


def test_the_incident_page_says_which_threshold_and_window_are_in_force(accepted, buyer, provider):
    opening.step_times_upload(
        reservation=accepted.reservation, user=provider.user, upload=_file(SUSTAINED)
    )
    incident = Incident.objects.get()
    html = buyer.client().get(reverse("incidents:incident-detail", args=[incident.pk]))
    text = html.content.decode()
    assert "Threshold in force: <strong>+10.0 %</strong> on every step" in text
    assert "<strong>15.0 min</strong>, from terms revision" in text
    assert "2026-11-04 10:30:00 → 2026-11-04 10:45:00 UTC" in text
    assert "<td>gpu-a02</td>" in text


def test_a_blip_opens_nothing_and_is_named_with_its_step_and_rise(accepted, provider):
    client = provider.client()
    url = reverse("incidents:incident-from-steps", args=[accepted.reservation.pk])
    page = client.post(url, {"file": _file(BLIP), "nodes": "gpu-a01"})
    html = page.content.decode()
    assert page.status_code == 200 and not Incident.objects.exists()
    assert "A blip, not degraded throughput: step 60 took 1.621 s, +61.9% over the 1.001 s" in html
    assert "No S2 is opened." in html and 'value="gpu-a01"' in html
    assert '<span id="step-baseline">1.001 s</span>, the hand-over baseline, burn-in run #' in html
    stored = StepTimesUpload.objects.get()
    assert stored.original_name == BLIP and len(stored.sha256) == 64
    assert stored.result["blip"]["step"] == 60 and stored.incident is None


def test_a_rank_map_onto_a_node_outside_the_reservation_is_refused(accepted, buyer):
    page = buyer.client().post(
        reverse("incidents:incident-from-steps", args=[accepted.reservation.pk]),
        {"file": _file(PLAIN), "rank_map": _file("rank_map_plain.csv")},
    )
    assert page.status_code == 200 and not Incident.objects.exists()
    assert "node-b02 is not a node of this reservation" in page.content.decode()


def test_the_plain_training_log_with_a_rank_map_names_the_node(accepted, buyer):
    known_nodes(accepted.reservation, "node-b01", "node-b02")
    page = buyer.client().post(
        reverse("incidents:incident-from-steps", args=[accepted.reservation.pk]),
        {"file": _file(PLAIN), "rank_map": _file("rank_map_plain.csv")},
    )
    incident = Incident.objects.get()
    assert page.status_code == 302 and incident.opened_by_party == "buyer"
    assert incident.nodes == ["node-b02"]
    assert incident.degraded["slowest"] == [{"rank": 3, "node": "node-b02", "seconds": 1.45}]
    # The rank map uploaded beside the plain log is the incident's rank map.
    assert incident.degraded["rank_map_file"] == "rank_map_plain.csv"
    text = ticket_for(incident).text()
    assert "From rank_map_plain.csv (4 ranks):\nnode-b01: ranks 0-1\nnode-b02: ranks 2-3" in text


def test_a_file_without_times_is_named_and_kept(accepted, provider):
    page = provider.client().post(
        reverse("incidents:incident-from-steps", args=[accepted.reservation.pk]),
        {"file": _file("steps_16ranks_even.csv", DATA.parent / "evidence" / "step-times")},
    )
    html = page.content.decode()
    assert page.status_code == 200 and not Incident.objects.exists()
    assert "steps_16ranks_even.csv: line 1: the header lacks time" in html
    assert StepTimesUpload.objects.get().error


def test_a_bad_rank_map_is_named_on_its_field(accepted, provider):
    bad = SimpleUploadedFile("map.csv", b"rank,node\nx,gpu-a01\n")
    page = provider.client().post(
        reverse("incidents:incident-from-steps", args=[accepted.reservation.pk]),
        {"file": _file(PLAIN), "rank_map": bad},
    )
    assert page.status_code == 200 and "map.csv" in page.content.decode()
    assert not Incident.objects.exists()


def test_step_times_uploaded_as_evidence_are_judged_by_the_incidents_frozen_terms(analysed, buyer):
    from incidents import services

    incident = services.incident_open(failed_run=analysed, user=buyer.user)
    row = services.incident_evidence_upload(
        incident=incident, user=buyer.user, kind="rank-steps", upload=_file(BLIP)
    )
    assert row.ok and row.parsed["qualifies"] is False and row.parsed["blip"]["step"] == 60
    assert row.parsed["threshold_pct"] == incident.degraded_pct


T0 = datetime(2026, 11, 4, 10, tzinfo=UTC)


def _rise_csv(slow_minutes: float, *, from_minute: int = 20, minutes: int = 60) -> bytes:
    """Eight ranks on gpu-a01/gpu-a02, a step every 20 s at the hand-over step time (1.001 s);
    from 10:`from_minute` for `slow_minutes`, each step's median +12 %, rank 7 (gpu-a02) +30 %."""
    start = T0 + timedelta(minutes=from_minute)
    end = start + timedelta(minutes=slow_minutes)
    lines = ["rank,node,step,seconds,timestamp"]
    for step in range(minutes * 3):
        at = T0 + timedelta(seconds=20 * step)
        slow = start <= at <= end
        for rank in range(8):
            seconds = 1.001 * (1.30 if rank == 7 else 1.12) if slow else 1.001
            node = "gpu-a02" if rank >= 4 else "gpu-a01"
            lines.append(f"{rank},{node},{step},{seconds:.4f},{at:%Y-%m-%dT%H:%M:%SZ}")
    return ("\n".join(lines) + "\n").encode()


def _upload(accepted, user, data: bytes, name: str = "steps.csv", **kwargs):
    upload = SimpleUploadedFile(name, data, content_type="text/csv")
    return opening.step_times_upload(
        reservation=accepted.reservation, user=user, upload=upload, **kwargs
    )


def test_a_ten_minute_rise_of_twelve_percent_opens_nothing(accepted, provider):
    row = _upload(accepted, provider.user, _rise_csv(10))
    assert row.incident is None and not Incident.objects.exists()
    assert row.result["blip"]["longest_run_minutes"] == 10.0
    assert "lasted 10.0 min, short of the agreed 15 min" in row.result["message"]


def test_a_sixteen_minute_rise_opens_with_failed_at_at_the_first_slow_step(accepted, provider):
    row = _upload(accepted, provider.user, _rise_csv(16))
    incident = Incident.objects.get()
    first_slow = T0 + timedelta(minutes=20)  # step 60
    assert row.incident == incident and incident.severity == "S2"
    assert incident.failed_at == incident.window_start == first_slow
    assert incident.window_end == first_slow + timedelta(minutes=15)
    assert incident.window["first_bad_step"] == 60 and incident.nodes == ["gpu-a02"]
    assert incident.degraded["slowest"] == [{"rank": 7, "node": "gpu-a02", "seconds": 1.3013}]


def test_a_log_that_starts_degraded_qualifies_against_the_handover_baseline(accepted, provider):
    # Slow from its first step to its last (20 minutes): no early slice of it is "normal".
    _upload(accepted, provider.user, _rise_csv(20, from_minute=0, minutes=20))
    incident = Incident.objects.get()
    assert incident.failed_at == T0 and incident.window["first_bad_step"] == 0
    assert incident.degraded["baseline_s"] == 1.001


def test_without_a_handover_step_time_nothing_opens_and_it_says_so(accepted, provider):
    baseline = Baseline.objects.get(reservation=accepted.reservation)
    baseline.snapshot = {**baseline.snapshot, "step_times": {"run_median_s": None, "ranks": None}}
    baseline.save(update_fields=["snapshot"])
    page = provider.client().post(
        reverse("incidents:incident-from-steps", args=[accepted.reservation.pk]),
        {"file": _file(SUSTAINED)},
    )
    html = page.content.decode()
    assert page.status_code == 200 and not Incident.objects.exists()
    assert "No baseline step time for this job" in html and "No S2 is opened." in html
    assert 'id="step-baseline">missing</span>' in html


def test_a_baseline_both_parties_agreed_is_used_when_given(accepted, provider):
    # Against an agreed 1.20 s the same rise (1.27 s) is +6 %: no S2.
    row = _upload(
        accepted, provider.user, (STEPS / SUSTAINED).read_bytes(), name=SUSTAINED,
        baseline_s=1.2, baseline_source="agreed baseline (test)",
    )  # fmt: skip
    assert row.incident is None and row.result["baseline_source"] == "agreed baseline (test)"
    assert row.result["message"].startswith("No step rose +10% over the 1.200 s baseline")


def test_the_s2_ticket_and_page_show_first_bad_step_slowest_ranks_and_rank_map(
    accepted, buyer, provider
):
    opening.step_times_upload(
        reservation=accepted.reservation, user=provider.user, upload=_file(SUSTAINED)
    )
    incident = Incident.objects.get()
    text = ticket_for(incident).text()
    for line in (
        "First bad step: step 90 at 2026-11-04 10:30:00",
        "Last healthy step: step 89 at 2026-11-04 10:29:40",
        "Failure: 2026-11-04 10:30:00 UTC",
        f"From {SUSTAINED}'s rank and node columns (8 ranks):",
        "gpu-a01: ranks 0-3",
        "gpu-a02: ranks 4-7",
        "Slowest ranks in the window (median step time):",
        "rank 4 on gpu-a02: 1.31 s",
        f"Step log: {SUSTAINED} uploaded, per-rank step times",
        "first bad step 90)",
    ):
        assert line in text, f"{line!r} not in\n{text}"
    assert "First bad step: unknown" not in text and "Step log: not uploaded" not in text
    html = buyer.client().get(reverse("incidents:incident-detail", args=[incident.pk]))
    page = html.content.decode()
    assert '<dd id="first-bad">90 · 2026-11-04 10:30:00' in page
    assert "First bad step: <strong>90</strong> at 2026-11-04 10:30:00 UTC" in page
    assert "<tr><td>4</td><td>gpu-a02</td><td>1.31 s</td></tr>" in page
    assert "<li>gpu-a02: ranks 4-7</li>" in page
    pdf = buyer.client().get(reverse("annexes:incident-ticket-pdf", args=[incident.pk]))
    flat = " ".join(
        " ".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf.content)).pages).split()
    )
    for line in ("First bad step: step 90", "gpu-a02: ranks 4-7", "rank 4 on gpu-a02: 1.31 s",
                 f"Step log: {SUSTAINED} uploaded"):  # fmt: skip
        assert line in flat, f"{line!r} not in the PDF"
