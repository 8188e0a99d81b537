"""The observed files go into each party's organisation export, and into no one else's."""

from __future__ import annotations

from typing import Any

import pytest

from observed import services
from tests.incidents.helpers import media_root
from tests.observed.helpers import DATA, data_file, worked_reservation
from tests.ops.export_helpers import export_of, job_archive

__all__ = ["media_root"]

pytestmark = pytest.mark.django_db


def test_both_parties_export_the_file_and_a_rival_does_not(
    buyer: Any, provider: Any, rival_provider: Any, media_root: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    reservation = worked_reservation(buyer, provider)
    with django_capture_on_commit_callbacks(execute=True):
        services.observed_upload(reservation=reservation, user=provider.user, kind="results",
                                 upload=data_file("results.csv"))  # fmt: skip
    for party in (buyer, provider):
        archive = job_archive(export_of(party, django_capture_on_commit_callbacks))
        [row] = archive.json("observed_files.json")
        assert row["kind"] == "results" and row["state"] == "done"
        assert archive.zip.read(row["file"]) == (DATA / "results.csv").read_bytes()
    rival = job_archive(export_of(rival_provider, django_capture_on_commit_callbacks))
    assert rival.json("observed_files.json") == []
