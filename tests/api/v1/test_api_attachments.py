"""A bid's files through the API: the provider attaches with curl (multipart), the buyer lists
and downloads the submitted ones; a file whose bytes disagree with its name is a 400."""

from __future__ import annotations

import hashlib

import pytest

from tests.api.v1.conftest import answer_all
from tests.bids.attachment_helpers import PDF_BYTES, upload

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def _url(api_world) -> str:
    return f"/api/v1/bids/{api_world.bid.pk}/attachments/"


def test_the_provider_attaches_and_the_buyer_reads_it_once_submitted(api_world, clients, provider):
    sent = clients["provider"].post(
        _url(api_world),
        {"file": upload("tier3.pdf", PDF_BYTES), "description": "Tier III certificate"},
        format="multipart",
    )
    assert sent.status_code == 201, sent.content
    body = sent.json()
    assert body["sha256"] == hashlib.sha256(PDF_BYTES).hexdigest()
    assert (body["name"], body["content_type"], body["size"]) == (
        "tier3.pdf",
        "application/pdf",
        len(PDF_BYTES),
    )
    assert body["first_revision"] is None
    assert clients["buyer"].get(_url(api_world)).json() == []  # not submitted yet
    assert clients["buyer"].get(body["file_url"]).status_code == 404

    answer_all(api_world.bid, provider.user)  # the questionnaire must be complete to submit
    submitted = clients["provider"].post(f"/api/v1/bids/{api_world.bid.pk}/submit/")
    assert submitted.status_code == 201, submitted.content
    listed = clients["buyer"].get(_url(api_world)).json()
    assert [(r["name"], r["sha256"], r["first_revision"]) for r in listed] == [
        ("tier3.pdf", body["sha256"], 2)
    ]
    revision = clients["buyer"].get(f"/api/v1/bids/{api_world.bid.pk}/revisions/2/").json()
    assert [(f["id"], f["sha256"]) for f in revision["attachments"]] == [
        (body["id"], body["sha256"])
    ]
    got = clients["buyer"].get(body["file_url"])
    assert got.status_code == 200 and b"".join(got.streaming_content) == PDF_BYTES
    assert got["Content-Disposition"] == 'attachment; filename="tier3.pdf"'


def test_a_pdf_name_on_text_is_a_400_naming_the_file(api_world, clients):
    sent = clients["provider"].post(
        _url(api_world), {"file": upload("report.pdf", b"plain words\n")}, format="multipart"
    )
    assert sent.status_code == 400
    assert sent.json()["errors"]["file"] == [
        "report.pdf is named as a PDF but its content is plain text. Rename it, or attach the "
        "file it should be."
    ]


def test_a_rival_cannot_list_or_attach(api_world, clients):
    rival = clients["rival_provider"]
    assert rival.get(_url(api_world)).status_code == 404
    sent = rival.post(_url(api_world), {"file": upload("x.pdf", PDF_BYTES)}, format="multipart")
    assert sent.status_code == 404
