"""The "Export our data" page: linked from the members page for administrators; a plain member
reads why not; the archive downloads for its organisation only."""

from __future__ import annotations

from typing import Any

import pytest

from ops.models import ExportJob
from tests.ops.export_helpers import read_archive

pytestmark = pytest.mark.django_db


def test_an_administrator_exports_from_the_page_and_downloads_the_zip(
    world: Any, buyer: Any, outsider: Any, django_capture_on_commit_callbacks: Any
) -> None:
    client = buyer.client()
    members = client.get("/org/members/").content.decode()
    assert 'href="/org/export/"' in members and "Export our data" in members
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/org/export/", follow=True)
    job = ExportJob.objects.get()
    assert f"Export #{job.pk} is being built" in response.content.decode()
    page = client.get("/org/export/").content.decode()  # the worker has finished since
    assert f'href="/org/export/{job.pk}/download/"' in page
    download = client.get(f"/org/export/{job.pk}/download/")
    assert download.status_code == 200
    archive = read_archive(b"".join(download.streaming_content))
    assert "README.md" in archive.names
    assert {row["id"] for row in archive.json("bids.json")} == {world.bid.pk, world.rival_bid.pk}
    assert outsider.client().get(f"/org/export/{job.pk}/download/").status_code == 404
    assert outsider.client().post(f"/org/export/{job.pk}/retry/").status_code == 404


def test_a_plain_member_reads_why_and_cannot_export(buyer: Any, buyer_requester: Any) -> None:
    client = buyer_requester.client()
    assert "Export our data" not in client.get("/org/members/").content.decode()
    page = client.get("/org/export/")
    assert "Only an administrator of Helix Labs can export its data." in page.content.decode()
    refused = client.post("/org/export/")
    assert refused.status_code == 403
    assert not ExportJob.objects.exists()
