"""What the failed-run and incident pages show: instants in one human format, clock labels, and a
diagnostics item that only the repaired node's run satisfies."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from rest_framework.test import APIClient

from incidents import services
from incidents.models import IncidentEvidenceKind
from incidents.selectors import checklist_states, utc_label
from tests.incidents.helpers import RECOVERY, recovery_file

pytestmark = pytest.mark.django_db
OPENED = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def incident(analysed, buyer) -> Any:
    return services.incident_open(failed_run=analysed, user=buyer.user, now=OPENED)


@pytest.mark.parametrize(
    ("stored", "shown"),
    [
        ("2026-11-20T10:30:00+00:00", "2026-11-20 10:30:00"),
        ("2026-11-20T10:30:00.100000+00:00", "2026-11-20 10:30:00.100"),
        ("2026-11-20T11:30:00.250000+01:00", "2026-11-20 10:30:00.250"),
        ("2026-11-20T10:30:00", "2026-11-20 10:30:00"),
        (None, None),
    ],
)
def test_instants_are_labelled_in_one_format(stored: str | None, shown: str | None) -> None:
    assert utc_label(stored) == shown


def test_a_timeline_event_on_a_whole_second_reads_as_a_time(analysed, provider) -> None:
    """GIVEN a timeline event at exactly 10:30:00 THEN the page does not cut it to '+00:'."""
    analysed.analysis["timeline"][0]["time"] = "2026-11-20T10:30:00+00:00"
    analysed.save(update_fields=["analysis"])
    page = provider.client().get(reverse("incidents:failed-run-detail", args=[analysed.pk]))
    html = page.content.decode()
    assert "<td>2026-11-20 10:30:00</td>" in html
    assert "+00:</td>" not in html


def test_a_secondary_kind_that_names_no_rank_counts_its_events(analysed, provider) -> None:
    """GIVEN srun's step-abort lines, which name no rank THEN the grouping does not read as
    '0' of them: it says no rank is named, and how many lines there were."""
    analysed.analysis["secondaries"] = [
        {"kind": "nccl_timeout", "cause": "watchdog", "ranks": [1, 2], "count": 2},
        {"kind": "scheduler", "cause": "step aborted", "ranks": [], "count": 3},
    ]
    analysed.save(update_fields=["analysis"])
    page = provider.client().get(reverse("incidents:failed-run-detail", args=[analysed.pk]))
    html = page.content.decode()
    rows = re.findall(r"<tr><td><code>(\w+)</code></td>(.*?)</tr>", html)
    shown = {kind: re.sub(r"<[^>]+>", "", cells) for kind, cells in rows}
    assert shown["nccl_timeout"] == "22"
    assert shown["scheduler"] == "none named3"


def test_recorded_clocks_say_responded_and_restored_at(incident, provider) -> None:
    for what, minutes in (("responded", 9), ("restored", 200)):
        services.incident_mark(
            incident=incident,
            user=provider.user,
            what=what,
            now=OPENED + timedelta(minutes=minutes),
        )
    html = provider.client().get(reverse("incidents:incident-detail", args=[incident.pk]))
    text = html.content.decode()
    assert "Responded at 2025-03-01 12:09 UTC" in text
    assert "Restored at 2025-03-01 15:20 UTC" in text
    assert "responsed" not in text and "restored at" not in text.replace("Restored at", "")


def test_the_first_bad_step_time_is_formatted_like_other_instants(incident, provider) -> None:
    services.incident_evidence_upload(
        incident=incident,
        user=provider.user,
        upload=recovery_file("train_steps.log"),
        kind=IncidentEvidenceKind.STEP_LOG,
    )
    incident.refresh_from_db()
    raw = incident.window["first_bad_at"]
    assert raw and "T" in raw  # stored as ISO
    html = provider.client().get(reverse("incidents:incident-detail", args=[incident.pk]))
    text = html.content.decode()
    shown = utc_label(raw)
    assert shown is not None and f"· {shown}</dd>" in text
    assert raw not in text


def _diag(incident: Any, user: Any, name: str, node: str = "") -> Any:
    # The contract's nodes have 8 × H200: a run must cover all of them.
    data = (RECOVERY / "dcgmi_diag_r2_dcgm4_8xh200_pass.txt").read_bytes()
    return services.incident_evidence_upload(
        incident=incident,
        user=user,
        upload=recovery_file(name, data),
        kind=IncidentEvidenceKind.DIAG,
        node=node,
    )


def _diagnostics(incident: Any) -> Any:
    return next(s for s in checklist_states(incident) if s.key == "diagnostics")


def test_diagnostics_from_another_node_do_not_clear_the_repaired_node(incident, provider) -> None:
    """GIVEN the analysis names node-17 THEN a passing diag from gpu-a01, another of the
    reservation's nodes, does not clear it by name; one from node-17 (named in the form or in
    the file name) passes it."""
    assert incident.failed_run.analysis["initiating_node"] == "node-17"
    _diag(incident, provider.user, "dcgmi.txt", node="gpu-a01")
    item = _diagnostics(incident)
    assert item.status == "fail"
    assert item.measured == "dcgmi diag from gpu-a01, not a repaired node; none from node-17"
    assert item.expected == "every test Pass on all 8 × H200 on node-17"
    row = _diag(incident, provider.user, "dcgmi-node-17.txt")
    assert row.parsed["node"] == "node-17"
    assert _diagnostics(incident).status == "pass"


def test_a_node_outside_the_reservation_is_refused_and_nothing_is_kept(incident, provider) -> None:
    """The reservation's burn-in ran on gpu-a01 and gpu-a02, the analysis names node-17: a diag
    said to come from node-3 is refused by name, on the upload page and through the API."""
    with pytest.raises(ValidationError) as refused:
        _diag(incident, provider.user, "dcgmi.txt", node="node-3")
    assert refused.value.message_dict["node"] == [
        "node-3 is not a node of this reservation (gpu-a01, gpu-a02, node-17)."
    ]
    assert not incident.evidence.exists()
    data = (RECOVERY / "dcgmi_diag_r2_dcgm4_8xh200_pass.txt").read_bytes()
    client = APIClient()
    client.force_authenticate(provider.user)
    api = client.post(
        f"/api/v1/incidents/{incident.pk}/evidence/",
        {"kind": "dcgmi-diag", "node": "true", "file": recovery_file("dcgmi.txt", data)},
        format="multipart",
    )
    assert api.status_code == 400, api.content
    assert "true is not a node of this reservation" in api.json()["errors"]["node"][0]
    page = provider.client().post(
        reverse("incidents:incident-evidence", args=[incident.pk]),
        {"kind": "dcgmi-diag", "node": "node-3", "file": recovery_file("dcgmi.txt", data)},
    )
    assert page.status_code == 200  # the page again, the form keeping what was typed
    text = page.content.decode()
    assert "node-3 is not a node of this reservation (gpu-a01, gpu-a02, node-17)." in text
    assert 'value="node-3"' in text
    assert not incident.evidence.exists()


def test_a_file_named_for_node_1_is_not_node_17(incident, provider) -> None:
    row = _diag(incident, provider.user, "diag-node-1.txt")
    assert row.parsed["node"] == "" and _diagnostics(incident).status == "waiting"


def test_without_a_named_node_any_passing_diag_counts(incident, provider) -> None:
    run = incident.failed_run
    run.analysis["initiating_node"] = None
    run.save(update_fields=["analysis"])
    incident.refresh_from_db()
    _diag(incident, provider.user, "dcgmi.txt")
    item = _diagnostics(incident)
    assert item.status == "pass" and item.expected == "every test Pass on all 8 × H200"


def test_an_empty_file_among_many_is_named_and_nothing_is_stored(accepted, provider) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    from incidents.models import FailedRun
    from tests.incidents.helpers import scenario_upload

    url = reverse("incidents:failed-run-upload", args=[accepted.reservation.pk])
    empty = SimpleUploadedFile("rank7.log", b"")
    page = provider.client().post(url, {"bundle": [scenario_upload(), empty]}, follow=True)
    assert page.status_code == 200
    assert "rank7.log: empty, and an empty file cannot be evidence." in page.content.decode()
    assert not FailedRun.objects.exists()


def test_a_refused_failed_run_keeps_its_label_and_world_size_on_the_reservation_page(
    accepted, provider
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    from incidents.models import FailedRun

    url = reverse("incidents:failed-run-upload", args=[accepted.reservation.pk])
    empty = SimpleUploadedFile("rank0.log", b"")
    page = provider.client().post(
        url, {"bundle": [empty], "world_size": "16", "label": "Night run 3"}
    )
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="fr-files_error"' in html and "rank0.log: empty" in html
    assert 'name="world_size" id="fr-world" placeholder="from the fixture" value="16"' in html
    assert 'value="Night run 3"' in html
    refused = provider.client().post(url, {"bundle": [empty], "world_size": "0", "label": "x"})
    assert 'id="fr-world_error"' in refused.content.decode()
    assert not FailedRun.objects.exists()


def test_an_empty_evidence_file_is_named_on_the_page_and_by_the_api(incident, provider) -> None:
    said = "dcgmi.txt: the file is empty; there is nothing to check."
    page = provider.client().post(
        reverse("incidents:incident-evidence", args=[incident.pk]),
        {"kind": "dcgmi-diag", "node": "", "file": recovery_file("dcgmi.txt", b"")},
    )
    assert said in html.unescape(page.content.decode())
    client = APIClient()
    client.force_authenticate(provider.user)
    api = client.post(
        f"/api/v1/incidents/{incident.pk}/evidence/",
        {"kind": "dcgmi-diag", "file": recovery_file("dcgmi.txt", b"")},
        format="multipart",
    )
    assert api.status_code == 400, api.content
    assert api.json()["errors"]["file"] == [said]
    assert not incident.evidence.exists()
