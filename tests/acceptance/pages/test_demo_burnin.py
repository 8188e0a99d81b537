"""The burn-in demo: each node's files are its own (the collector's header), so the demo run
has no findings; its gate blocks on the slow all_reduce alone, as the demo says."""

from __future__ import annotations

from typing import Any

import pytest

from acceptance.demo_burnin import seed_burnin_demo
from acceptance.models import Check
from demo.seed import seed_demo

pytestmark = pytest.mark.django_db


def test_the_demo_run_has_distinct_node_files_and_no_findings(
    settings: Any, tmp_path: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.MEDIA_ROOT = tmp_path / "media"
    seed_demo()
    with django_capture_on_commit_callbacks(execute=True):
        run = seed_burnin_demo()
    assert run is not None
    run.refresh_from_db()
    assert run.checks_current and run.gate_passed is False
    labelled = run.evidence.exclude(node="")
    assert {e.node for e in labelled} == {"gpu-a01", "gpu-a02"}
    assert len({e.sha256 for e in labelled}) == labelled.count() == 10
    checks = Check.objects.filter(run=run, version=run.checked_version)
    assert not checks.exclude(finding_key="").exists()
    blocking = {c.group for c in checks if c.mandatory and c.status in ("fail", "missing")}
    assert "nccl-tests" in blocking
    assert not blocking & {"topology", "gpu-query", "dcgmi", "ibstat"}, run.gate_summary
