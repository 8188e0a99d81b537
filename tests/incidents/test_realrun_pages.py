"""A real torchrun failure uploaded as a provider would: the page names the rank, its node and
the signal it died by, and says plainly what the Flight Recorder dumps do and do not show."""

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
KILL9 = Path(__file__).resolve().parents[1] / "data" / "failures" / "realruns" / "kill9"


class Member:
    def __init__(self, name: str, data: bytes) -> None:
        self.name, self.data = name, data


def _upload(accepted: Any, provider: Any, capture: Any, *, dumps: str) -> str:
    members = [Member(p.name, p.read_bytes()) for p in sorted(KILL9.glob("*.log"))]
    fr = sorted((KILL9 / "fr").iterdir())
    if dumps == "cut":
        # rank 1 was killed while writing its dump: the file is there, and empty
        members += [Member(f"fr/{p.name}", b"" if p.name.endswith("_1") else p.read_bytes())
                    for p in fr]  # fmt: skip
    elif dumps == "all":
        members += [Member(f"fr/{p.name}", p.read_bytes()) for p in fr]
    with capture(execute=True):  # the analysis task runs once the upload commits
        run = services.failed_run_upload(
            reservation=accepted.reservation,
            user=provider.user,
            uploads=[SimpleUploadedFile("kill9.tar.gz", tar_bytes(members))],
            rank_map=SimpleUploadedFile("rank_map.csv", (KILL9 / "rank_map.csv").read_bytes()),
            world_size=4,
        )
    run.refresh_from_db()
    assert run.state == FailedRunState.ANALYSED, run.error
    page = provider.client().get(reverse("incidents:failed-run-detail", args=[run.pk]))
    return page.content.decode()


def test_a_rank_killed_by_sigkill_is_named_with_its_node_and_signal(
    accepted, provider, django_capture_on_commit_callbacks
) -> None:
    html = _upload(accepted, provider, django_capture_on_commit_callbacks, dumps="all")
    assert "died by <strong>SIGKILL</strong>" in html
    assert "node-1" in html
    assert "No mismatch between ranks in the Flight Recorder data." in html


def test_without_dumps_the_page_does_not_claim_there_is_no_mismatch(
    accepted, provider, django_capture_on_commit_callbacks
) -> None:
    html = _upload(accepted, provider, django_capture_on_commit_callbacks, dumps="none")
    assert "No Flight Recorder dump was uploaded" in html
    assert "No mismatch between ranks" not in html


def test_an_empty_dump_makes_the_dumps_incomplete_not_consistent(
    accepted, provider, django_capture_on_commit_callbacks
) -> None:
    html = _upload(accepted, provider, django_capture_on_commit_callbacks, dumps="cut")
    assert "The Flight Recorder dumps are incomplete" in html
    assert 'id="incomplete-dumps"' in html
    assert "No mismatch between ranks" not in html
