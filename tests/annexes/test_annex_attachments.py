"""The contract annex lists the awarded revision's files with their size and SHA-256."""

from __future__ import annotations

import hashlib

import pytest

from annexes.document.snapshot import contract_snapshot
from bids.services import bid_attachment_add, bid_attachment_remove, bid_submit
from tests.annexes.test_annex_award import _contract_text
from tests.bids.attachment_helpers import PDF_BYTES, PNG_BYTES, upload


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def attached(world, provider):
    """Revision 2 carries the certificate; a diagram added and then removed never went out."""
    cert = bid_attachment_add(
        bid=world.bid,
        user=provider.user,
        upload=upload("tier3-certificate.pdf", PDF_BYTES),
        description="Tier III",
    )
    dropped = bid_attachment_add(
        bid=world.bid, user=provider.user, upload=upload("d.png", PNG_BYTES)
    )
    bid_attachment_remove(attachment=dropped, user=provider.user)
    bid_submit(bid=world.bid, user=provider.user)
    return cert


def test_the_snapshot_freezes_the_awarded_revisions_files(attached, awarded):
    files = contract_snapshot(capacity_request=awarded.request)["bid_revision"]["attachments"]
    assert files == [
        {
            "id": attached.pk,
            "name": "tier3-certificate.pdf",
            "size": len(PDF_BYTES),
            "sha256": hashlib.sha256(PDF_BYTES).hexdigest(),
            "content_type": "application/pdf",
            "description": "Tier III",
        }
    ]


def test_the_annex_pdf_prints_name_size_and_sha256(
    attached, awarded, buyer, django_capture_on_commit_callbacks
):
    text = _contract_text(awarded.request, buyer.user, django_capture_on_commit_callbacks)
    assert "Files attached to the offer (1)" in text
    assert f"1 tier3-certificate.pdf PDF {len(PDF_BYTES)} B Tier III" in text
    assert f"{hashlib.sha256(PDF_BYTES).hexdigest()}  tier3-certificate.pdf" in text
    assert "d.png" not in text


def test_a_revision_without_files_keeps_its_snapshot_as_before(awarded):
    assert "attachments" not in contract_snapshot(capacity_request=awarded.request)["bid_revision"]
