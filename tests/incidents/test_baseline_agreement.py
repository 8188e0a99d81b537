"""The baseline S2 is measured against: the buyer proposes its own job's step time, an approver
or admin of the provider accepts or rejects it; only an accepted one replaces the hand-over
burn-in's (1.001 s here). Through the page and the API, roles and parties checked, audited, and
nobody outside the reservation sees or touches any of it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from audit.models import AuditEntry
from incidents.models import BaselineProposal, Incident
from incidents.services import opening
from orgs.choices import MemberRole
from tests.factories import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 11, 4, 10, tzinfo=UTC)


def _steps(seconds: float, *, steps: int, name: str = "steps.csv") -> SimpleUploadedFile:
    """Eight ranks on gpu-a01/gpu-a02, a step every 20 s, every step at `seconds`."""
    lines = ["rank,node,step,seconds,timestamp"]
    for step in range(steps):
        at = T0 + timedelta(seconds=20 * step)
        for rank in range(8):
            node = "gpu-a02" if rank >= 4 else "gpu-a01"
            lines.append(f"{rank},{node},{step},{seconds:.4f},{at:%Y-%m-%dT%H:%M:%SZ}")
    return SimpleUploadedFile(name, "\n".join(lines).encode(), content_type="text/csv")


def _api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _job_at_handover_speed(accepted: Any, provider: Any) -> Any:
    """An hour of the job at 1.001 s a step: level with the hand-over baseline, but 11.2 % over
    a 0.9 s one, for the whole hour."""
    return opening.step_times_upload(
        reservation=accepted.reservation, user=provider.user, upload=_steps(1.001, steps=180)
    )


def test_only_an_accepted_proposal_moves_the_s2_baseline(accepted, buyer, provider):
    reservation = accepted.reservation
    page = reverse("incidents:baseline", args=[reservation.pk])
    proposed = buyer.client().post(
        page, {"file": _steps(0.9, steps=30, name="our-job.csv"), "reason": "Our job, 64 ranks"}
    )
    assert proposed.status_code == 302
    row = BaselineProposal.objects.get()
    assert (row.step_time_s, row.steps, row.status) == (0.9, 30, "pending")
    html = buyer.client().get(page).content.decode()
    assert "1.001 s" in html and "hand-over baseline" in html and "our-job.csv" in html
    # Pending: the hand-over baseline still judges, and the job level with it opens nothing.
    assert _job_at_handover_speed(accepted, provider).incident is None
    # Not the buyer's to accept, nor a provider engineer's.
    accept_url = f"/api/v1/reservations/{reservation.pk}/baseline/accept/"
    assert _api(buyer.user).post(accept_url).status_code == 403
    engineer = UserFactory(username="eddie")
    MembershipFactory(user=engineer, organization=provider.org, role=MemberRole.ENGINEER)
    refused = _api(engineer).post(accept_url)
    assert refused.status_code == 403
    accepted_now = _api(provider.user).post(
        f"/api/v1/reservations/{reservation.pk}/baseline/accept/",
        {"reason": "Matches our own smoke run"}, format="json",
    )  # fmt: skip
    assert accepted_now.status_code == 200, accepted_now.content
    data = accepted_now.json()
    assert data["step_time_s"] == 0.9 and "agreed by both parties" in data["basis"]
    assert data["proposals"][0]["status"] == "accepted"
    assert data["proposals"][0]["decided_by"] == "nora"
    # Now the same hour at 1.001 s is 11.2 % over the agreed 0.9 s throughout: an S2 opens.
    row2 = _job_at_handover_speed(accepted, provider)
    incident = Incident.objects.get(pk=row2.incident_id)
    assert incident.severity == "S2" and incident.degraded["baseline_s"] == 0.9
    assert "agreed by both parties" in incident.degraded["baseline_source"]
    actions = set(AuditEntry.objects.values_list("action", flat=True))
    assert {"baseline.propose", "baseline.accept"} <= actions


def test_a_rejection_needs_a_reason_and_leaves_the_handover_baseline(accepted, buyer, provider):
    reservation = accepted.reservation
    url = f"/api/v1/reservations/{reservation.pk}/baseline/"
    created = _api(buyer.user).post(
        url, {"file": _steps(0.9, steps=30), "reason": "Ours"}, format="multipart"
    )
    assert created.status_code == 201, created.content
    # One proposal at a time.
    again = _api(buyer.user).post(
        url, {"file": _steps(0.8, steps=30), "reason": "Ours again"}, format="multipart"
    )
    assert again.status_code == 409 and "already proposed" in str(again.json())
    bare = _api(provider.user).post(f"{url}reject/", {}, format="json")
    assert bare.status_code == 400 and "reason" in str(bare.json())
    rejected = _api(provider.user).post(
        f"{url}reject/", {"reason": "Measured on a different batch size"}, format="json"
    )
    assert rejected.status_code == 200, rejected.content
    assert rejected.json()["step_time_s"] == 1.001
    assert rejected.json()["proposals"][0]["status"] == "rejected"
    assert _job_at_handover_speed(accepted, provider).incident is None


def test_a_bad_file_is_named_and_the_provider_does_not_propose(accepted, buyer, provider):
    reservation = accepted.reservation
    url = f"/api/v1/reservations/{reservation.pk}/baseline/"
    short = _api(buyer.user).post(
        url, {"file": _steps(0.9, steps=5, name="tiny.csv"), "reason": "x"}, format="multipart"
    )
    assert short.status_code == 400
    assert "tiny.csv: 5 steps; a baseline needs at least 10 steps" in str(short.json())
    page = buyer.client().post(
        reverse("incidents:baseline", args=[reservation.pk]),
        {"file": SimpleUploadedFile("bad.csv", b"a,b\n1,2\n"), "reason": "x"},
    )
    assert page.status_code == 200 and "bad.csv: line 1: the header lacks" in page.content.decode()
    theirs = _api(provider.user).post(
        url, {"file": _steps(0.9, steps=30), "reason": "ours"}, format="multipart"
    )
    assert theirs.status_code == 403
    assert not BaselineProposal.objects.exists()


def test_outsiders_get_404_everywhere(accepted, buyer, outsider, rival_provider):
    reservation = accepted.reservation
    _api(buyer.user).post(
        f"/api/v1/reservations/{reservation.pk}/baseline/",
        {"file": _steps(0.9, steps=30), "reason": "Ours"}, format="multipart",
    )  # fmt: skip
    for stranger in (outsider, rival_provider):
        page = reverse("incidents:baseline", args=[reservation.pk])
        assert stranger.client().get(page).status_code == 404
        posted = stranger.client().post(page, {"file": _steps(0.9, steps=30), "reason": "x"})
        assert posted.status_code == 404
        answer = reverse("incidents:baseline-answer", args=[reservation.pk, "accept"])
        assert stranger.client().post(answer).status_code == 404
        api = _api(stranger.user)
        base = f"/api/v1/reservations/{reservation.pk}/baseline/"
        assert api.get(base).status_code == 404
        assert api.post(f"{base}accept/", {}, format="json").status_code == 404
        assert api.post(f"{base}reject/", {"reason": "no"}, format="json").status_code == 404
    assert BaselineProposal.objects.get().status == "pending"
