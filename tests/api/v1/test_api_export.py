"""The organisation export through the API over the API's world: the parties of a reservation
get its annex PDF, failed-run files, incident and usage bill; a rival and an outsider get none
of them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.v1.conftest import ApiWorld, token_client
from tests.api.v1.tenancy_builders import USAGE_CSV, usage
from tests.ops.export_helpers import Archive, read_archive

pytestmark = pytest.mark.django_db
URL = "/api/v1/organization/export/"


def _export(role: Any, capture: Any) -> Archive:
    client = token_client(role.user)
    with capture(execute=True):
        job = client.post(URL).json()
    polled = client.get(job["url"]).json()
    assert polled["status"] == "done", polled["error"]
    download = client.get(polled["download_url"])
    return read_archive(b"".join(download.streaming_content))


def test_the_parties_get_annexes_failed_runs_and_incidents_and_no_one_else(
    api_world: ApiWorld,
    buyer: Any,
    provider: Any,
    rival_provider: Any,
    outsider: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    incident = api_world.incident
    with django_capture_on_commit_callbacks(execute=True):
        bill = usage(api_world)["uid"]
    pdf = api_world.annex.pdf.open("rb").read()
    for party in (buyer, provider):
        archive = _export(party, django_capture_on_commit_callbacks)
        [annex] = archive.json("annexes.json")
        assert archive.zip.read(annex["pdf"]) == pdf
        assert incident.pk in {row["id"] for row in archive.json("incidents.json")}
        files = archive.json("failed_run_files.json")
        assert files and all(archive.zip.read(row["file"]) for row in files)
        runs = {row["id"] for row in archive.json("failed_runs.json")}
        assert {api_world.failed_run.pk, incident.failed_run_id} <= runs
        [usage_bill] = archive.json("usage_bills.json")
        assert usage_bill["id"] == bill
        assert archive.zip.read(usage_bill["file"]) == USAGE_CSV.read_bytes()
    for stranger in (rival_provider, outsider):
        archive = _export(stranger, django_capture_on_commit_callbacks)
        for kind in ("annexes", "incidents", "failed_runs", "failed_run_files", "usage_bills"):
            assert archive.json(f"{kind}.json") == [], (stranger.user, kind)
        assert not [name for name in archive.names if name.startswith("files/")]
        assert archive.json("reservations.json") == []
        assert pdf not in archive.text() and USAGE_CSV.read_bytes() not in archive.text()
