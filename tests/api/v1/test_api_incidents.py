"""Incidents from a script, through the same services as the incident page: the provider's
token opens it and records the response, both parties upload recovery evidence and sign items
off, the close is refused (naming what is open) until the checklist passes."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from incidents import services
from incidents.models import FailedRunState, Incident
from tests.api.v1.conftest import token_client
from tests.incidents.helpers import accepted, analysed, recovery_file

__all__ = ["accepted", "analysed"]
pytestmark = pytest.mark.django_db


def _upload(client: Any, incident_id: int, name: str, kind: str) -> Any:
    return client.post(
        f"/api/v1/incidents/{incident_id}/evidence/",
        {"kind": kind, "file": recovery_file(name)},
        format="multipart",
    )


def test_an_incident_from_open_to_close_by_api(analysed, accepted, buyer, provider):
    nora, alice = token_client(provider.user), token_client(buyer.user)
    url = f"/api/v1/failed-runs/{analysed.pk}/incident/"
    opened = nora.post(url, {}, format="json", HTTP_IDEMPOTENCY_KEY="open-1")
    assert opened.status_code == 201, opened.content
    again = nora.post(url, {}, format="json", HTTP_IDEMPOTENCY_KEY="open-1")
    assert again.json() == opened.json() and Incident.objects.count() == 1
    body = opened.json()
    assert body["severity"] == body["proposed_severity"] == "S1" and body["is_open"] is True
    assert [c["key"] for c in body["clocks"]] == ["response", "restore"]
    assert body["clocks"][0]["minutes"] == 15 and body["clocks"][0]["done_at"] is None
    incident_id = body["id"]

    listed = alice.get(f"/api/v1/reservations/{accepted.reservation.pk}/incidents/?open=true")
    assert [i["id"] for i in listed.json()["results"]] == [incident_id]

    responded = nora.post(f"/api/v1/incidents/{incident_id}/responded/")
    assert responded.status_code == 200
    clock = responded.json()["clocks"][0]
    assert clock["done_by"] == provider.user.username and clock["done_at"]
    twice = nora.post(f"/api/v1/incidents/{incident_id}/responded/")
    assert twice.status_code == 409 and "already recorded" in twice.json()["detail"]
    not_hers = alice.post(f"/api/v1/incidents/{incident_id}/restored/")
    assert not_hers.status_code == 403 and not_hers.json()["move"] == "restored"

    refused = alice.post(
        f"/api/v1/incidents/{incident_id}/close/", {"confirm": True}, format="json"
    )
    assert refused.status_code == 409  # the checklist, not the call, is missing something
    assert "nccl-tests bus bandwidth" in refused.json()["detail"]

    for name, kind in [
        ("nccl_all_reduce_recovered.txt", "nccl-tests"),
        ("pre_incident_steps.csv", "smoke-steps"),
        ("megatron_resumed_continuous.log", "training-log"),
    ]:
        stored = _upload(nora, incident_id, name, kind)
        assert stored.status_code == 201 and stored.json()["ok"] is True, stored.content
    files = alice.get(f"/api/v1/incidents/{incident_id}/evidence/?ordering=-uploaded_at").json()
    assert [f["name"] for f in files["results"]] == [
        "megatron_resumed_continuous.log",
        "pre_incident_steps.csv",
        "nccl_all_reduce_recovered.txt",
    ]

    checklist = alice.get(f"/api/v1/incidents/{incident_id}/").json()["checklist"]
    open_items = [item for item in checklist if not item["passed"]]
    assert all(item["signable"] for item in open_items) and open_items
    not_signable = next(item for item in checklist if not item["signable"])
    wrong = alice.post(
        f"/api/v1/incidents/{incident_id}/signoff/",
        {"key": not_signable["key"], "note": "fine"},
        format="json",
    )
    assert (
        wrong.status_code == 400 and "checked against uploaded evidence" in wrong.json()["detail"]
    )
    assert nora.post(f"/api/v1/incidents/{incident_id}/restored/").status_code == 200
    # No recurrence is counted from the restore: pretend it was two days ago.
    Incident.objects.filter(pk=incident_id).update(restored_at=timezone.now() - timedelta(days=2))
    for item in open_items:
        owner = nora if item["key"] == "no_recurrence_hours" else alice
        signed = owner.post(
            f"/api/v1/incidents/{incident_id}/signoff/",
            {"key": item["key"], "note": "checked"},
            format="json",
        )
        assert signed.status_code == 201, signed.content

    alone = nora.post(f"/api/v1/incidents/{incident_id}/close/")
    assert alone.status_code == 409 and "Only the buyer confirms" in alone.json()["detail"]
    unconfirmed = alice.post(f"/api/v1/incidents/{incident_id}/close/")
    assert unconfirmed.status_code == 400 and "confirm" in unconfirmed.json()["errors"]
    closed = alice.post(f"/api/v1/incidents/{incident_id}/close/", {"confirm": True}, format="json")
    assert closed.status_code == 200, closed.content
    assert closed.json()["is_open"] is False and closed.json()["closed_at"]
    late = _upload(nora, incident_id, "nccl_all_reduce_recovered.txt", "nccl-tests")
    assert late.status_code == 409 and "closed" in late.json()["detail"]


def test_a_different_severity_needs_a_reason_named_in_errors(analysed, buyer):
    client = token_client(buyer.user)
    url = f"/api/v1/failed-runs/{analysed.pk}/incident/"
    response = client.post(url, {"severity": "S3"}, format="json")
    assert response.status_code == 400 and "reason" in response.json()["errors"]
    assert not Incident.objects.exists()
    opened = client.post(url, {"severity": "S3", "reason": "One node out."}, format="json")
    assert opened.status_code == 201 and opened.json()["severity"] == "S3"


def test_lost_time_marks_by_patch(analysed, buyer):
    incident = services.incident_open(failed_run=analysed, user=buyer.user)
    client = token_client(buyer.user)
    response = client.patch(
        f"/api/v1/incidents/{incident.pk}/",
        {"gpus": 16, "last_checkpoint_at": "2025-03-01T10:30:00Z"},
        format="json",
    )
    assert response.status_code == 200, response.content
    lost = response.json()["lost_time"]
    assert response.json()["gpus"] == 16 and "last checkpoint" not in lost["missing"]
    bad = client.patch(f"/api/v1/incidents/{incident.pk}/", {"gpus": 0}, format="json")
    assert bad.status_code == 400 and "gpus" in bad.json()["errors"]


def test_an_unreadable_analysis_is_retried(analysed, provider):
    analysed.state, analysed.error = FailedRunState.UNREADABLE, "no readable files"
    analysed.save()
    response = token_client(provider.user).post(f"/api/v1/failed-runs/{analysed.pk}/retry/")
    assert response.status_code == 202
    assert response.json()["state"] == FailedRunState.QUEUED and response.json()["error"] == ""


def test_the_incident_list_costs_the_same_for_one_or_many(accepted, buyer):
    client = token_client(buyer.user)
    url = f"/api/v1/reservations/{accepted.reservation.pk}/incidents/"
    client.get(url)  # the token's first use is recorded once; not part of the list's cost

    def queries_for(total: int) -> int:
        while Incident.objects.count() < total:
            Incident.objects.create(
                reservation=accepted.reservation,
                severity="S2",
                proposed_severity="S2",
                clocks={"S2": {"response_minutes": 30, "restore_minutes": 480}},
                opened_by=buyer.user,
                opened_at=timezone.now(),
            )
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).json()["count"] == total
        return len(queries)

    assert queries_for(1) == queries_for(12)


def test_diagnostics_uploaded_by_api_name_their_node(analysed, provider):
    from pathlib import Path

    incident = services.incident_open(failed_run=analysed, user=provider.user)
    repaired = analysed.analysis["initiating_node"]
    data = (
        Path(__file__).resolve().parents[2] / "data/evidence/dcgmi-diag/diag_r3_dcgm3_all_pass.txt"
    ).read_bytes()
    stored = token_client(provider.user).post(
        f"/api/v1/incidents/{incident.pk}/evidence/",
        {"kind": "dcgmi-diag", "file": recovery_file("dcgmi.txt", data), "node": repaired},
        format="multipart",
    )
    assert stored.status_code == 201, stored.content
    assert stored.json()["parsed"]["node"] == repaired
