"""Kubernetes events, NCCL's lost-peer socket errors and a torchfrtrace report, uploaded as a
provider would: the page says which rank or node, and why, in words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from incidents import services
from incidents.models import FailedRunState
from tests.incidents.helpers import tar_bytes

pytestmark = pytest.mark.django_db
DATA = Path(__file__).resolve().parents[1] / "data" / "failures"


class Member:
    def __init__(self, name: str, data: bytes) -> None:
        self.name, self.data = name, data


def _page(accepted: Any, provider: Any, capture: Any, members: list[Member]) -> str:
    with capture(execute=True):  # the analysis task runs once the upload commits
        run = services.failed_run_upload(
            reservation=accepted.reservation,
            user=provider.user,
            uploads=[SimpleUploadedFile("bundle.tar.gz", tar_bytes(members))],
            rank_map=None,
            world_size=None,
        )
    run.refresh_from_db()
    assert run.state == FailedRunState.ANALYSED, run.error
    page = provider.client().get(reverse("incidents:failed-run-detail", args=[run.pk]))
    return page.content.decode()


def test_a_pytorchjob_s_events_name_the_replica_and_its_exit_code(
    accepted, provider, django_capture_on_commit_callbacks
) -> None:
    root = DATA / "kube_events" / "bert_pt"
    members = [Member("kubectl-get-events.txt", (root / "kubectl-get-events.txt").read_bytes())]
    members += [Member(f"logs/{p.name}", p.read_bytes()) for p in sorted((root / "logs").iterdir())]
    html = _page(accepted, provider, django_capture_on_commit_callbacks, members)
    assert "<strong>rank 4</strong>" in html
    assert "container of bert-pt-worker-3 killed by SIGKILL (exit code 137" in html
    assert "is failed because 1 Worker replica(s) failed" in html


def test_a_lost_nccl_peer_names_the_remote_node_not_the_reporting_rank(
    accepted, provider, django_capture_on_commit_callbacks
) -> None:
    name = "nccl_socket_closed_by_peer_gpu-a03.log"
    html = _page(accepted, provider, django_capture_on_commit_callbacks,
                 [Member(name, (DATA / "shapes" / name).read_bytes())])  # fmt: skip
    assert "<dd>gpu-b07</dd>" in html
    assert "gpu-b07&#x27;s process exited or the network to it failed" in html
    assert "those ranks are not blamed" in html


def test_a_torchfrtrace_report_names_the_missing_rank(
    accepted, provider, django_capture_on_commit_callbacks
) -> None:
    name = "torchfrtrace_rank5_missing.txt"
    html = _page(accepted, provider, django_capture_on_commit_callbacks,
                 [Member(name, (DATA / "fr_report" / name).read_bytes())])  # fmt: skip
    assert "<strong>rank 5</strong>" in html
    assert "rank 5 never joined nccl:all_reduce #4113" in html
    assert "The Flight Recorder analyser's report (torchfrtrace)" in html
