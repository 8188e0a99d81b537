"""Reference runs on the fixture page: the buyer's CPU dry run of the bundle (run here for real,
with the gloo backend) and a run from another cluster as a pre-award baseline."""

from __future__ import annotations

import importlib.util
import io
import json
import re
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from acceptance.bundle import build_bundle
from acceptance.models import FixtureReference
from engine.evidence.checks.model import evidence_item_from_text
from engine.evidence.checks.spec import load_spec
from engine.evidence.checks.workload import check_fixture
from tests.acceptance.bundle.test_bundle_fixture_run import TORCH_MISSING
from tests.conftest import require_service

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[2] / "data" / "fixture_reference"
# A real `fixture_allreduce.py --spawn 4 --backend gloo` output, as it printed it.
DRY_RUN_4 = (DATA / "cpu_dry_run_4.jsonl").read_bytes()


def _gpu_lines(text: bytes) -> bytes:
    """The same records as if they had run on GPUs of another cluster."""
    out = []
    for line in text.decode().splitlines():
        rec = json.loads(line)
        rec.update(device=f"cuda:{rec['local_rank']}", nccl_version="2.21.5", cuda_version="12.4")
        out.append(json.dumps(rec, sort_keys=True))
    return ("\n".join(out) + "\n").encode()


def _post(client: Any, req: Any, data: bytes, name: str = "fixture-result.jsonl", **fields: str):
    body = {"source": "cpu_dry_run", "cluster": "", **fields}
    body["file"] = SimpleUploadedFile(name, data, content_type="text/plain")
    return client.post(reverse("acceptance:fixture-reference-upload", args=[req.pk]), body)


def _page(client: Any, req: Any) -> str:
    return client.get(reverse("acceptance:fixture-detail", args=[req.pk])).content.decode()


def test_a_real_cpu_dry_run_of_the_bundle_is_the_fixtures_reference(fx, buyer, provider, tmp_path):
    if importlib.util.find_spec("torch") is None:
        require_service(False, TORCH_MISSING)
    archive, _ = build_bundle(fx.version.spec)
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        tar.extractall(tmp_path, filter="data")
    (root,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    run = subprocess.run(
        [sys.executable, "fixture_allreduce.py", "--spawn", "2", "--backend", "gloo",
         "--iterations", "6"],
        cwd=root, capture_output=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr.decode()[-2000:]

    response = _post(buyer.client(), fx.request, run.stdout, name="dry-run.jsonl")
    assert response.status_code == 302
    ref = FixtureReference.objects.get()
    assert ref.passed is True, ref.checks
    assert {c["name"] for c in ref.checks} >= {"reference: ranks", "reference: sum values"}
    assert ref.summary["ranks"] == 2 and ref.summary["devices"] == ["cpu"]
    # The invited provider reads it with the fixture, and downloads the same bytes.
    page = _page(provider.client(), fx.request)
    assert "CPU dry run (gloo)" in page and ref.sha256 in page and "passes" in page
    got = provider.client().get(reverse("acceptance:fixture-reference-download", args=[ref.pk]))
    assert b"".join(got.streaming_content) == run.stdout


def test_a_dry_run_is_never_a_cluster_reference_and_says_so(fx, buyer):
    _post(buyer.client(), fx.request, DRY_RUN_4, source="other_cluster", cluster="Lab H100 pod")
    ref = FixtureReference.objects.get()
    assert ref.passed is False
    device = next(c for c in ref.checks if c["name"] == "reference: device")
    assert "dry run" in device["message"] and device["measured"] == "4 of 4 ranks on the CPU"
    assert "fails" in _page(buyer.client(), fx.request)


def test_a_cluster_run_is_a_pre_award_baseline(fx, buyer):
    _post(
        buyer.client(), fx.request, _gpu_lines(DRY_RUN_4), source="other_cluster",
        cluster="Lab H100 pod",
    )  # fmt: skip
    ref = FixtureReference.objects.get()
    assert ref.passed is True, ref.checks
    assert ref.cluster == "Lab H100 pod" and ref.summary["nccl"] == ["2.21.5"]


def test_a_wrong_tensor_count_fails_with_the_agreed_one_named(fx, buyer):
    lines = [json.loads(x) for x in DRY_RUN_4.decode().splitlines()]
    for rec in lines:
        rec["count"] = 4096
    _post(buyer.client(), fx.request, "\n".join(json.dumps(r) for r in lines).encode())
    ref = FixtureReference.objects.get()
    count = next(c for c in ref.checks if c["name"] == "reference: count and dtype")
    assert count["status"] == "fail" and "1048576 x int64" in count["expected"]


def test_a_gpu_worker_without_nccl_is_refused_on_its_line_and_the_file_kept(fx, buyer):
    lines = DRY_RUN_4.decode().splitlines()
    rec = json.loads(lines[2])
    rec["device"] = "cuda:2"
    lines[2] = json.dumps(rec)
    _post(buyer.client(), fx.request, ("\n".join(lines) + "\n").encode())
    ref = FixtureReference.objects.get()
    assert ref.passed is False and ref.error_line == 3
    assert "'nccl_version' must not be null on a GPU worker (device cuda:2)" in ref.error
    assert ref.read_bytes().decode().splitlines()[2] == lines[2]


def test_a_cluster_run_needs_its_cluster_named_and_keeps_the_choice(fx, buyer):
    response = _post(buyer.client(), fx.request, DRY_RUN_4, source="other_cluster")
    assert response.status_code == 400
    html = response.content.decode()
    assert "Name the cluster (site or provider) the run is from." in html
    assert re.search(r'<input[^>]*value="other_cluster"[^>]*checked', html)
    assert not FixtureReference.objects.exists()


@pytest.mark.parametrize("role", ["provider", "rival_provider", "outsider"])
def test_only_the_buyer_attaches_a_reference(fx, role, request):
    client = request.getfixturevalue(role).client()
    assert _post(client, fx.request, DRY_RUN_4).status_code == 404
    assert not FixtureReference.objects.exists()


def test_the_download_is_hidden_from_outsiders(fx, buyer, outsider):
    _post(buyer.client(), fx.request, DRY_RUN_4)
    ref = FixtureReference.objects.get()
    url = reverse("acceptance:fixture-reference-download", args=[ref.pk])
    assert outsider.client().get(url).status_code == 404


def test_a_dry_run_uploaded_as_burn_in_evidence_fails_the_device_check(fx):
    spec = load_spec(fx.version.spec)
    item = evidence_item_from_text(ref="dry.jsonl", node=None, text=DRY_RUN_4)
    device = next(r for r in check_fixture(spec, [item], True) if r.name.endswith("device"))
    assert device.status == "fail" and "proves the fixture script, not these GPUs" in device.message
