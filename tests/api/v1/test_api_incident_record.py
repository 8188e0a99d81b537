"""The incident page's record moves by token, through the page's services: an S2 from step
times, a restart on fewer nodes, the change log, the repair estimate, sign-off disputes and the
ticket PDF. Each is refused to the wrong party (403) and hidden from an outsider (404), and each
write lands on the audit trail as the page's does."""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from pypdf import PdfReader

from audit.models import AuditEntry
from incidents.models import ChecklistSignoff, Incident
from incidents.selectors import checklist_states
from incidents.services import incident_signoff, opening
from tests.api.v1.conftest import token_client
from tests.incidents.helpers import DATA, accepted

__all__ = ["accepted"]
pytestmark = pytest.mark.django_db

STEPS = DATA / "degraded"


def _steps(name: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, (STEPS / name).read_bytes(), content_type="text/csv")


def _actions(incident_id: int) -> list[str]:
    return list(
        AuditEntry.objects.filter(obj_key=f"incident:{incident_id}")
        .order_by("seq")
        .values_list("action", flat=True)
    )


def _s3(accepted: Any, provider: Any) -> Incident:
    return opening.incident_open_signal(
        reservation=accepted.reservation,
        user=provider.user,
        severity="S3",
        nodes=["gpu-a02"],
        window_start=accepted.reservation.clock_start,
        signal="other",
        summary="gpu-a02 drained.",
    )


def test_step_times_open_an_s2_and_a_blip_opens_nothing(accepted, provider, buyer, outsider):
    url = f"/api/v1/reservations/{accepted.reservation.pk}/incidents/step-times/"
    nora = token_client(provider.user)
    hidden = token_client(outsider.user).post(
        url, {"file": _steps("steps_8ranks_gpu-a02_sustained_rise.csv")}, format="multipart"
    )
    assert hidden.status_code == 404 and not Incident.objects.exists()

    blip = token_client(buyer.user).post(
        url, {"file": _steps("steps_8ranks_blip_step60.csv")}, format="multipart"
    )
    assert blip.status_code == 200, blip.content
    assert blip.json()["opened"] is False and blip.json()["incident"] is None
    assert "A blip, not degraded throughput: step 60" in blip.json()["message"]

    opened = nora.post(
        url, {"file": _steps("steps_8ranks_gpu-a02_sustained_rise.csv")}, format="multipart"
    )
    assert opened.status_code == 201, opened.content
    incident = Incident.objects.get(pk=opened.json()["incident"])
    assert incident.severity == "S2" and incident.nodes == ["gpu-a02"]
    assert incident.opened_by_party == "provider"
    assert opened.json()["found"]["first_step"] == 90
    assert _actions(incident.pk) == ["incident.open"]


def test_step_times_that_are_not_step_times_name_the_file(accepted, buyer):
    response = token_client(buyer.user).post(
        f"/api/v1/reservations/{accepted.reservation.pk}/incidents/step-times/",
        {"file": SimpleUploadedFile("notes.txt", b"the job felt slow\n")},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["errors"]["file"] and not Incident.objects.exists()


def test_fewer_nodes_on_an_s3_by_either_party_and_audited(accepted, provider, buyer, outsider):
    incident = _s3(accepted, provider)
    url = f"/api/v1/incidents/{incident.pk}/fewer-nodes/"
    body = {"at": timezone.now().isoformat(), "continuing_nodes": 1}  # the term began just now
    assert token_client(outsider.user).post(url, body, format="json").status_code == 404
    future = {"at": (timezone.now() + timedelta(hours=1)).isoformat(), "continuing_nodes": 1}
    refused = token_client(buyer.user).post(url, future, format="json")
    assert refused.status_code == 400 and "in the future" in refused.json()["errors"]["at"][0]

    done = token_client(buyer.user).post(url, body, format="json")
    assert done.status_code == 200, done.content
    assert done.json()["continuing_nodes"] == 1 and done.json()["fewer_nodes_at"]
    assert _actions(incident.pk)[-1] == "incident.fewer_nodes"


def test_the_change_log_is_proposed_decided_by_the_other_party_and_applied(
    accepted, provider, buyer, outsider
):
    incident = _s3(accepted, provider)
    nora, alice = token_client(provider.user), token_client(buyer.user)
    url = f"/api/v1/incidents/{incident.pk}/changes/"
    assert token_client(outsider.user).get(url).status_code == 404

    empty = nora.post(url, {"kind": "tweak", "what": " "}, format="json")
    assert empty.status_code == 400 and set(empty.json()["errors"]) == {"kind", "what"}
    proposed = nora.post(
        url, {"kind": "config", "what": "NCCL_IB_HCA=mlx5_0-3 on gpu-a02"}, format="json"
    )
    assert proposed.status_code == 201, proposed.content
    change = proposed.json()["id"]
    assert proposed.json()["status"] == "proposed"
    assert proposed.json()["proposed_party"] == "provider"

    own = nora.post(f"{url}{change}/decide/", {"decision": "approve"}, format="json")
    assert own.status_code == 403 and own.json()["move"] == "change_approve"
    early = nora.post(f"{url}{change}/apply/", {}, format="json")
    assert early.status_code == 409 and "not approved it yet" in early.json()["detail"]
    bare = alice.post(f"{url}{change}/decide/", {"decision": "decline"}, format="json")
    assert bare.status_code == 400 and "note" in bare.json()["errors"]
    approved = alice.post(f"{url}{change}/decide/", {"decision": "approve"}, format="json")
    assert approved.status_code == 200 and approved.json()["decided_by"] == buyer.user.username
    applied = nora.post(
        f"{url}{change}/apply/", {"checks_rerun": "all_reduce_perf, 2 nodes"}, format="json"
    )
    assert applied.status_code == 200 and applied.json()["status"] == "applied"

    listed = alice.get(url).json()["results"]
    assert [(c["id"], c["status"], c["checks_rerun"]) for c in listed] == [
        (change, "applied", "all_reduce_perf, 2 nodes")
    ]
    assert _actions(incident.pk)[-3:] == [
        "incident.change.propose",
        "incident.change.approve",
        "incident.change.apply",
    ]


def test_the_repair_estimate_is_the_providers_and_every_revision_is_kept(
    accepted, provider, buyer, outsider
):
    incident = _s3(accepted, provider)
    url = f"/api/v1/incidents/{incident.pk}/estimates/"
    eta = timezone.now() + timedelta(hours=6)
    body = {"cause_class": "gpu", "eta": eta.isoformat(), "confidence": "medium", "parts": ["GPU"]}
    nora = token_client(provider.user)
    assert token_client(outsider.user).post(url, body, format="json").status_code == 404
    assert token_client(outsider.user).get(url).status_code == 404
    wrong = token_client(buyer.user).post(url, body, format="json")
    assert wrong.status_code == 403 and wrong.json()["move"] == "estimate"
    bare = token_client(buyer.user).post(url, {}, format="json")
    assert bare.status_code == 403 and bare.json()["move"] == "estimate"

    past = {**body, "eta": (timezone.now() - timedelta(hours=1)).isoformat()}
    late = nora.post(url, past, format="json")
    assert late.status_code == 400 and "in the past" in late.json()["errors"]["eta"][0]
    assert nora.post(url, body, format="json").status_code == 201
    second = nora.post(url, {**body, "confidence": "high", "parts": []}, format="json")
    assert second.status_code == 201 and second.json()["revision"] == 2

    listed = token_client(buyer.user).get(url).json()["results"]
    assert [(e["revision"], e["confidence"]) for e in listed] == [(2, "high"), (1, "medium")]
    assert _actions(incident.pk)[-2:] == ["incident.estimate", "incident.estimate"]


def test_a_sign_off_is_disputed_by_the_other_party_only(accepted, provider, buyer, outsider):
    incident = _s3(accepted, provider)
    key = next(s.key for s in checklist_states(incident) if s.signable)
    incident_signoff(incident=incident, user=buyer.user, key=key, note="Loss continues.")
    url = f"/api/v1/incidents/{incident.pk}/signoff-disputes/"
    body = {"key": key, "reason": "The loss jumps after the restart."}
    assert token_client(outsider.user).post(url, body, format="json").status_code == 404
    own = token_client(buyer.user).post(url, body, format="json")
    assert own.status_code == 403 and own.json()["move"] == "dispute"
    bare = token_client(provider.user).post(url, {"key": key, "reason": ""}, format="json")
    assert bare.status_code == 400 and "reason" in bare.json()["errors"]

    disputed = token_client(provider.user).post(url, body, format="json")
    assert disputed.status_code == 201, disputed.content
    assert disputed.json()["disputed_note"] == "Loss continues."
    assert disputed.json()["party"] == "provider"
    assert not ChecklistSignoff.objects.filter(incident=incident, key=key).exists()
    listed = token_client(buyer.user).get(url).json()["results"]
    assert [(d["key"], d["reason"]) for d in listed] == [(key, body["reason"])]
    assert _actions(incident.pk)[-1] == "incident.dispute"


def test_the_ticket_pdf_is_a_real_pdf_of_the_ticket(accepted, provider, buyer, outsider):
    incident = _s3(accepted, provider)
    url = f"/api/v1/incidents/{incident.pk}/ticket/"
    assert token_client(outsider.user).get(url).status_code == 404
    response = token_client(buyer.user).get(url)
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert f'filename="incident-{incident.pk}-ticket.pdf"' in response["Content-Disposition"]
    assert response.content.startswith(b"%PDF-")
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(response.content)).pages)
    assert f"Incident: #{incident.pk}" in text and "Change log" in text


def test_a_replayed_step_times_upload_opens_one_s2_and_a_replayed_estimate_one_revision(
    accepted, provider
):
    nora = token_client(provider.user)
    url = f"/api/v1/reservations/{accepted.reservation.pk}/incidents/step-times/"
    name = "steps_8ranks_gpu-a02_sustained_rise.csv"
    first = nora.post(url, {"file": _steps(name)}, format="multipart", HTTP_IDEMPOTENCY_KEY="s2")
    again = nora.post(url, {"file": _steps(name)}, format="multipart", HTTP_IDEMPOTENCY_KEY="s2")
    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true" and Incident.objects.count() == 1

    estimates = f"/api/v1/incidents/{first.json()['incident']}/estimates/"
    eta = (timezone.now() + timedelta(hours=2)).isoformat()
    body = {"cause_class": "nic", "eta": eta, "confidence": "low"}
    for _ in range(2):
        posted = nora.post(estimates, body, format="json", HTTP_IDEMPOTENCY_KEY="est-1")
        assert posted.status_code == 201 and posted.json()["revision"] == 1
    assert nora.get(estimates).json()["count"] == 1
