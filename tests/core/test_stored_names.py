"""Stored files never keep an active extension: a checked attachment is filed under its kind's
extension, and any other upload named like a page or an SVG gets a neutral one."""

from __future__ import annotations

import pytest

from bids.services import bid_attachment_add
from core.uploads import neutral_name
from tests.bids.attachment_helpers import PNG_BYTES, upload
from tests.stored import empty_storage, stored_file_names


@pytest.mark.parametrize(
    ("sent", "stored"),
    [
        ("rank0.log", "rank0.log"),
        ("run.tar.gz", "run.tar.gz"),
        ("report.html", "report_html.bin"),
        ("logo.SVG", "logo_SVG.bin"),
        ("trick.html.log", "trick_html_log.bin"),
        ("../../etc/page.htm", "page_htm.bin"),
    ],
)
def test_an_upload_never_keeps_an_active_extension(sent, stored):
    assert neutral_name(sent, fallback="evidence.txt") == stored


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("sent", "data", "stored"),
    [
        ("notes.html", b"<script>alert(1)</script>\n", "notes.txt"),
        ("diagram.svg", b"<svg onload='alert(1)'/>", "diagram.txt"),
        ("photo.x.svg", PNG_BYTES, "photo_x.png"),
    ],
)
def test_an_attachment_is_stored_under_its_checked_kind(
    world, provider, empty_storage, sent, data, stored
):
    att = bid_attachment_add(bid=world.bid, user=provider.user, upload=upload(sent, data))
    assert att.file.name.endswith(f"/{stored}")
    assert att.original_name == sent  # the name it came with, for the download
    assert att.read_bytes() == data
    assert stored_file_names() == [stored]  # the first name was not left behind


__all__ = ["empty_storage"]  # a fixture
