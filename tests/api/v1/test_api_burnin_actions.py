"""The run page's buttons by API: re-check a run, retry or withdraw an evidence file. Same
services as the browser, so the same rule: only while the reservation awaits its decision."""

from __future__ import annotations

import pytest

from acceptance.models import EvidenceState, ReservationStatus
from tests.acceptance.burnin.helpers import awarded, upload, upload_all
from tests.api.v1.conftest import token_client

__all__ = ["awarded"]
pytestmark = pytest.mark.django_db

NCCL = "burnin/nccl-tests/all_reduce_2node_slow.txt"


def test_a_withdrawn_file_leaves_the_checks_but_stays_listed(
    awarded, buyer, provider, django_capture_on_commit_callbacks
):
    (evidence,) = upload_all(
        awarded.run, provider.user, [(NCCL, "")], django_capture_on_commit_callbacks
    )
    version = awarded.run.evidence_version
    client = token_client(buyer.user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/api/v1/evidence/{evidence.pk}/withdraw/")
    assert response.status_code == 200 and response.json()["withdrawn"] is True
    awarded.run.refresh_from_db()
    assert awarded.run.evidence_version == version + 1
    state = client.get(f"/api/v1/runs/{awarded.run.pk}/evidence/").json()
    assert [(e["id"], e["withdrawn"]) for e in state["results"]] == [(evidence.pk, True)]
    assert all(c["evidence_id"] != evidence.pk for c in state["checks"])
    # A withdrawn file is out of the checks: a retry would quietly parse it for nothing.
    retried = client.post(f"/api/v1/evidence/{evidence.pk}/retry/")
    assert retried.status_code == 409 and "was withdrawn" in retried.json()["detail"]


def test_a_retry_queues_an_unreadable_file_again(awarded, provider):
    evidence = upload(awarded.run, provider.user, NCCL).evidence
    evidence.state, evidence.error = EvidenceState.UNREADABLE, "line 3: no table"
    evidence.save()
    response = token_client(provider.user).post(f"/api/v1/evidence/{evidence.pk}/retry/")
    assert response.status_code == 202
    assert response.json()["state"] == EvidenceState.QUEUED and response.json()["error"] == ""


def test_a_recheck_runs_the_checks_again(awarded, provider, django_capture_on_commit_callbacks):
    upload_all(awarded.run, provider.user, [(NCCL, "")], django_capture_on_commit_callbacks)
    version = awarded.run.evidence_version
    with django_capture_on_commit_callbacks(execute=True):
        response = token_client(provider.user).post(f"/api/v1/runs/{awarded.run.pk}/recheck/")
    assert response.status_code == 202
    assert response.json()["evidence_version"] == version + 1
    awarded.run.refresh_from_db()
    assert awarded.run.checks_current and awarded.run.gate_passed is False


def test_after_the_decision_the_evidence_is_closed(awarded, buyer, provider):
    evidence = upload(awarded.run, provider.user, NCCL).evidence
    awarded.reservation.status = ReservationStatus.REJECTED
    awarded.reservation.save()
    client = token_client(provider.user)
    for url in (
        f"/api/v1/evidence/{evidence.pk}/withdraw/",
        f"/api/v1/evidence/{evidence.pk}/retry/",
        f"/api/v1/runs/{awarded.run.pk}/recheck/",
    ):
        response = client.post(url)
        assert response.status_code == 409, url
        assert "burn-in evidence is closed" in response.json()["detail"]
