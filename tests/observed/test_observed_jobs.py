"""Slurm's records through the app (sinfo takes the contract's GPUs per node), and a parse whose
worker was lost is failed by the reaper, then retried."""

from __future__ import annotations

import gzip
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from core.jobs import reap_stuck_jobs
from observed import services
from observed.models import ObservedState, ObservedUpload
from observed.selectors import observed_report
from tests.incidents.helpers import media_root
from tests.observed.helpers import data_file, worked_reservation

__all__ = ["media_root"]

pytestmark = pytest.mark.django_db


@pytest.fixture
def reservation(buyer: Any, provider: Any, media_root: Any) -> Any:
    return worked_reservation(buyer, provider)


def test_sacct_and_sinfo_give_receipts_and_capacities(
    reservation, provider, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        for kind, name in (("sacct", "sacct-parsable2.txt"), ("sinfo", "sinfo-N-l.txt")):
            services.observed_upload(reservation=reservation, user=provider.user, kind=kind,
                                     upload=data_file(name))  # fmt: skip
    assert set(ObservedUpload.objects.values_list("state", flat=True)) == {"done"}
    found = observed_report(reservation=reservation).observed
    assert found is not None
    # The pending sweep was submitted in the term but never ran: no receipt time to running.
    assert [(r.job, r.to_running_minutes) for r in found.receipts.rows] == [
        ("48213", 8), ("48214", 4), ("48215", None),
    ]  # fmt: skip
    (reclaim,) = found.reclaims
    assert reclaim.back_minutes == 41
    assert reclaim.misses == ("running again after 41 min, over the promised p95 of 30 min",)
    # The sinfo snapshot of 3 March 06:00: three nodes of 8 GPUs allocatable, the drained one out.
    assert found.days[1].allocatable == 24


def test_a_gzipped_dump_is_read_as_the_text_inside_and_a_cut_one_says_so(
    reservation, provider, django_capture_on_commit_callbacks
):
    plain = data_file("sacct-parsable2.txt").read()
    with django_capture_on_commit_callbacks(execute=True):
        for name, data in (("whole", gzip.compress(plain)), ("cut", gzip.compress(plain)[:40])):
            services.observed_upload(reservation=reservation, user=provider.user, kind="sacct",
                                     upload=data_file(f"sacct-{name}.txt.gz", data))  # fmt: skip
    whole, cut = ObservedUpload.objects.order_by("pk")
    assert whole.state == "done" and whole.parsed
    assert cut.state == "error"
    assert cut.error.startswith("sacct-cut.txt.gz is a gzip file that cannot be unpacked")


def test_a_lost_parse_is_failed_by_the_reaper_and_can_be_retried(
    reservation, provider, django_capture_on_commit_callbacks
):
    row = services.observed_upload(reservation=reservation, user=provider.user, kind="results",
                                   upload=data_file("results.csv"))  # fmt: skip
    long_ago = timezone.now() - timedelta(days=1)
    ObservedUpload.objects.filter(pk=row.pk).update(
        state=ObservedState.PARSING, started_at=long_ago
    )
    assert reap_stuck_jobs()["observed-record parses"] == 1
    row.refresh_from_db()
    assert row.state == "error" and row.error
    with django_capture_on_commit_callbacks(execute=True):
        services.observed_retry(upload=row, user=provider.user)
    row.refresh_from_db()
    assert row.state == "done" and row.parsed["counts"]["step"]["accepted"] == 391
