"""Reference runs through the API: a buyer attaches the CPU dry run with curl, everyone who reads
the fixture lists it and downloads the bytes; a bad kind is a 400 naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

DRY_RUN = Path(__file__).resolve().parents[2] / "data" / "fixture_reference" / "cpu_dry_run_4.jsonl"

pytestmark = pytest.mark.django_db


def _url(api_world) -> str:
    return f"/api/v1/requests/{api_world.request.pk}/fixture/references/"


def test_the_buyer_attaches_a_dry_run_and_the_invitees_read_it(api_world, clients):
    data = DRY_RUN.read_bytes()
    sent = clients["buyer"].post(
        _url(api_world),
        {"file": SimpleUploadedFile("dry.jsonl", data), "kind": "cpu_dry_run"},
        format="multipart",
    )
    assert sent.status_code == 201, sent.content
    body = sent.json()
    assert body["kind"] == "cpu_dry_run" and body["passed"] is True
    assert {c["name"] for c in body["checks"]} >= {"reference: ranks", "reference: sum values"}
    listed = clients["rival_provider"].get(_url(api_world)).json()
    assert [r["sha256"] for r in listed] == [body["sha256"]]
    got = clients["provider"].get(body["file_url"])
    assert got.status_code == 200 and b"".join(got.streaming_content) == data


def test_a_cluster_run_without_its_cluster_is_a_400_naming_the_field(api_world, clients):
    sent = clients["buyer"].post(
        _url(api_world),
        {"file": SimpleUploadedFile("gpu.jsonl", DRY_RUN.read_bytes()), "kind": "other_cluster"},
        format="multipart",
    )
    assert sent.status_code == 400
    assert "Name the cluster" in sent.json()["errors"]["cluster"][0]
