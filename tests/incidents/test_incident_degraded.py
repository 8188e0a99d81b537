"""S2 from per-rank step times, by the terms' definition of degraded: a sustained rise opens an
S2 with its first qualifying window, the slowest ranks and their nodes; a blip opens nothing and
says so, naming the step and its rise. The file is stored either way."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from incidents.models import Incident, IncidentEvidence, StepTimesUpload
from incidents.services import opening
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
    # The first 15-minute window whose median is +10 % over the baseline: it ends at 10:37:20.
    assert incident.window_start == datetime(2026, 11, 4, 10, 22, 40, tzinfo=UTC)
    assert incident.window_end == datetime(2026, 11, 4, 10, 37, 20, tzinfo=UTC)
    assert incident.nodes == ["gpu-a02"]
    found = incident.degraded
    assert (found["threshold_pct"], found["window_minutes"]) == (10.0, 15.0)
    assert [s["rank"] for s in found["slowest"]] == [4, 5, 6, 7]
    assert found["first_step"] == 90 and found["baseline_s"] == 1.0
    assert "terms revision" in found["terms_source"]
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
    assert "Threshold in force: <strong>+10.0 %</strong>" in text
    assert "<strong>15.0 min</strong>, from terms revision" in text
    assert "2026-11-04 10:22:40 → 2026-11-04 10:37:20 UTC" in text
    assert "<td>gpu-a02</td>" in text


def test_a_blip_opens_nothing_and_is_named_with_its_step_and_rise(accepted, provider):
    client = provider.client()
    url = reverse("incidents:incident-from-steps", args=[accepted.reservation.pk])
    page = client.post(url, {"file": _file(BLIP), "nodes": "gpu-a01"})
    html = page.content.decode()
    assert page.status_code == 200 and not Incident.objects.exists()
    assert "A blip, not degraded throughput: step 60 took 1.621 s, +62.1% over the 1.000 s" in html
    assert "No S2 is opened." in html and 'value="gpu-a01"' in html
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
    assert incident.degraded["slowest"] == [{"rank": 3, "node": "node-b02", "seconds": 1.4455}]


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
