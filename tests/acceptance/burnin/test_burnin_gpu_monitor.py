"""A GPU monitor capture (nvidia-smi dmon) uploaded with a burn-in's evidence is recognised,
parsed and checked: a GPU lost mid-capture blocks the gate and the run's page names it."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from api.services import token_create
from tests.acceptance.burnin.helpers import GOOD_SET, file_upload, upload_all

pytestmark = pytest.mark.django_db

LOST_GPU2 = "nvidia-smi-dmon/dmon_pucet_4xv100_gpu2_row_cut_short_mid_capture.txt"
LOST = "nvidia-smi-dmon: GPUs stay on the bus"


def test_an_uploaded_dmon_capture_is_parsed_and_a_lost_gpu_fails_the_gate(
    awarded, buyer, provider, django_capture_on_commit_callbacks
):
    run = awarded.run
    upload_all(run, provider.user, GOOD_SET, django_capture_on_commit_callbacks)
    assert run.gate_passed, run.gate_summary
    _, secret = token_create(user=provider.user, name="cluster")
    curl = Client(HTTP_AUTHORIZATION=f"Token {secret}")
    url = reverse("api:run-evidence", args=[run.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = curl.post(url, {"file": file_upload(LOST_GPU2), "node": "gpu-a02"})
    assert response.status_code == 201, response.content
    (stored,) = response.json()["files"]

    body = curl.get(url).json()
    dmon = next(e for e in body["results"] if e["id"] == stored["id"])
    assert (dmon["kind"], dmon["state"], dmon["node"]) == ("nvidia-smi-dmon", "parsed", "gpu-a02")
    assert body["gate"]["passed"] is False
    check = next(c for c in body["checks"] if c["name"] == LOST)
    assert check["status"] == "fail" and check["mandatory"] and check["line"] == 17
    assert check["evidence_id"] == stored["id"] and "GPU 2" in check["message"]

    html = buyer.client().get(reverse("burnin:run-detail", args=[run.pk])).content.decode()
    assert "GPU monitor during the burn-in (nvidia-smi dmon)" in html
    assert "GPU 2 stopped reporting at line 17" in html


def test_the_kind_can_be_named_and_an_unknown_one_lists_it(awarded, provider):
    _, secret = token_create(user=provider.user, name="cluster")
    curl = Client(HTTP_AUTHORIZATION=f"Token {secret}")
    url = reverse("api:run-evidence", args=[awarded.run.pk])
    named = curl.post(url, {"file": file_upload(LOST_GPU2), "kind": "nvidia-smi-dmon"})
    assert named.status_code == 201, named.content
    wrong = curl.post(url, {"file": file_upload(LOST_GPU2, b"x\n"), "kind": "dmon"})
    assert wrong.status_code == 400 and "nvidia-smi-dmon" in str(wrong.json()["errors"]["kind"])
