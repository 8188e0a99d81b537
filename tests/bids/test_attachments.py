"""A provider's files on its bid: checked by content, hashed, frozen with the revision."""

from __future__ import annotations

import hashlib

import pytest
from django.core.exceptions import ValidationError

from bids.models import BidAttachment, BidRevision
from bids.models.bids import FrozenRevisionError
from bids.services import bid_attachment_add, bid_attachment_remove, bid_save_draft, bid_submit
from core.errors import ServiceError
from core.lifecycle import MoveRefused
from tests.bids.attachment_helpers import PDF_BYTES, PNG_BYTES, upload


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def _files(media_root):
    return [p for p in media_root.rglob("*") if p.is_file()] if media_root.exists() else []


def test_it_stores_the_bytes_their_hash_size_name_and_kind(world, provider):
    att = bid_attachment_add(
        bid=world.bid,
        user=provider.user,
        upload=upload("tier3.pdf", PDF_BYTES),
        description="  Tier III certificate ",
    )
    assert att.sha256 == hashlib.sha256(PDF_BYTES).hexdigest()
    assert (att.size, att.original_name, att.content_type) == (
        len(PDF_BYTES),
        "tier3.pdf",
        "application/pdf",
    )
    assert att.description == "Tier III certificate"
    assert att.read_bytes() == PDF_BYTES
    world.bid.refresh_from_db()
    assert world.bid.has_unsubmitted_changes  # a new file is something to submit


def test_a_pdf_named_text_file_is_refused_naming_it_and_nothing_is_kept(
    world, provider, media_root
):
    with pytest.raises(ValidationError) as exc:
        bid_attachment_add(bid=world.bid, user=provider.user, upload=upload("cert.pdf", b"hello\n"))
    assert exc.value.message_dict["file"] == [
        "cert.pdf is named as a PDF but its content is plain text. Rename it, or attach the "
        "file it should be."
    ]
    assert not BidAttachment.objects.exists()
    assert _files(media_root) == []


def test_a_file_over_the_upload_limit_is_refused_in_mib(world, provider, settings):
    settings.EVIDENCE_MAX_BYTES = 1024 * 1024
    big = PDF_BYTES + b"x" * (2 * 1024 * 1024)
    with pytest.raises(ValidationError) as exc:
        bid_attachment_add(bid=world.bid, user=provider.user, upload=upload("big.pdf", big))
    assert exc.value.message_dict["file"] == [
        "big.pdf is 2 MiB; the limit for one attachment is 1 MiB."
    ]


def test_an_empty_file_is_refused(world, provider):
    with pytest.raises(ValidationError, match=r"empty\.txt is empty"):
        bid_attachment_add(bid=world.bid, user=provider.user, upload=upload("empty.txt", b""))


def test_only_the_bids_provider_may_attach(world, rival_provider, buyer):
    for role in (rival_provider, buyer):
        with pytest.raises(MoveRefused):
            bid_attachment_add(bid=world.bid, user=role.user, upload=upload("a.png", PNG_BYTES))


def test_submit_freezes_the_files_into_the_revision(world, provider):
    att = bid_attachment_add(bid=world.bid, user=provider.user, upload=upload("d.png", PNG_BYTES))
    revision = bid_submit(bid=world.bid, user=provider.user)
    assert revision.number == 2
    assert revision.attachments == [
        {
            "id": att.pk,
            "name": "d.png",
            "size": len(PNG_BYTES),
            "sha256": att.sha256,
            "content_type": "image/png",
            "description": "",
        }
    ]
    att.refresh_from_db()
    assert att.first_revision == 2
    with pytest.raises(FrozenRevisionError):
        att.delete()


def test_removing_a_frozen_file_only_leaves_it_out_of_the_next_revision(world, provider):
    kept = bid_attachment_add(bid=world.bid, user=provider.user, upload=upload("a.pdf", PDF_BYTES))
    bid_submit(bid=world.bid, user=provider.user)
    kept.refresh_from_db()
    bid_attachment_remove(attachment=kept, user=provider.user)
    fresh = bid_attachment_add(bid=world.bid, user=provider.user, upload=upload("b.png", PNG_BYTES))
    third = bid_submit(bid=world.bid, user=provider.user)
    assert [row["name"] for row in third.attachments] == ["b.png"]
    second = BidRevision.objects.get(bid=world.bid, number=2)
    assert [row["name"] for row in second.attachments] == ["a.pdf"]
    kept.refresh_from_db()
    assert kept.read_bytes() == PDF_BYTES  # still there for revision 2
    with pytest.raises(ServiceError, match="already left out"):
        bid_attachment_remove(attachment=kept, user=provider.user)
    assert fresh.pk


def test_removing_an_unsubmitted_file_deletes_it(
    world, provider, media_root, django_capture_on_commit_callbacks
):
    att = bid_attachment_add(bid=world.bid, user=provider.user, upload=upload("a.pdf", PDF_BYTES))
    with django_capture_on_commit_callbacks(execute=True):
        bid_attachment_remove(attachment=att, user=provider.user)
    assert not BidAttachment.objects.exists()
    assert _files(media_root) == []


def test_a_closed_request_takes_no_new_file(world, provider):
    from datetime import timedelta

    from django.utils import timezone

    world.request.bid_deadline = timezone.now() - timedelta(minutes=1)
    world.request.save()
    with pytest.raises(MoveRefused):
        bid_attachment_add(bid=world.bid, user=provider.user, upload=upload("a.pdf", PDF_BYTES))


def test_saving_the_draft_keeps_an_added_file_to_submit(world, provider):
    bid_attachment_add(bid=world.bid, user=provider.user, upload=upload("a.pdf", PDF_BYTES))
    bid_save_draft(bid=world.bid, user=provider.user, data={})
    world.bid.refresh_from_db()
    assert world.bid.has_unsubmitted_changes
