"""A bid's files: attached and removed through the bid's 'edit' move, frozen by `bid_submit`."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone

from audit.services import Audience
from bids.audit import record_bid
from bids.lifecycle import bid_move
from bids.models import Bid, BidAttachment
from core.errors import ServiceError
from core.filetypes import UnsupportedFile, check_file
from core.uploads import atomic_keeping_no_orphans
from engine.formatting import data_size

DESCRIPTION_MAX = BidAttachment._meta.get_field("description").max_length or 200


def _check_size(upload: UploadedFile) -> None:
    name = upload.name or "The file"
    size = upload.size or 0
    limit = settings.EVIDENCE_MAX_BYTES
    if size == 0:
        raise ValidationError({"file": [f"{name} is empty; attach a file with something in it."]})
    if size > limit:
        raise ValidationError(
            {
                "file": [
                    f"{name} is {data_size(size)}; the limit for one attachment is "
                    f"{data_size(limit)}."
                ]
            }
        )


def _changed(bid: Bid) -> None:
    """A file added or removed is something new to submit, as a changed term is."""
    Bid.objects.filter(pk=bid.pk).update(has_unsubmitted_changes=True, updated_at=timezone.now())


def _record(bid: Bid, action: str, user: User, attachment: BidAttachment) -> None:
    # Like the draft it belongs to, an unsubmitted file is the provider's own business.
    record_bid(
        bid=bid,
        action=action,
        user=user,
        after={"file": attachment.original_name, "sha256": attachment.sha256},
        audience=Audience(provider_org_id=bid.provider_id),
    )


def bid_attachment_add(
    *, bid: Bid, user: User, upload: UploadedFile, description: str = ""
) -> BidAttachment:
    """Store the file (bytes, size, SHA-256) and keep it only if its content is an accepted
    kind; it goes into the next revision the provider submits."""
    bid_move(bid, "edit", user=user)
    description = description.strip()
    if len(description) > DESCRIPTION_MAX:
        raise ValidationError(
            {"description": [f"Keep the description to {DESCRIPTION_MAX} characters."]}
        )
    _check_size(upload)
    with atomic_keeping_no_orphans():
        attachment = BidAttachment(bid=bid, uploaded_by=user, description=description)
        attachment.store(upload)
        try:
            kind = check_file(attachment.original_name, attachment.read_bytes())
        except UnsupportedFile as exc:
            # Rolling back deletes the stored bytes: a refused file leaves nothing behind.
            raise ValidationError({"file": [str(exc)]}) from None
        attachment.content_type = kind.content_type
        attachment.keep_as(kind.content_type)  # never stored as .html or .svg
        attachment.save()
        _changed(bid)
        _record(bid, "bid.attachment.add", user, attachment)
    return attachment


@transaction.atomic
def bid_attachment_remove(*, attachment: BidAttachment, user: User) -> None:
    """Leave a file out of the next revision. One no revision carried yet is deleted; one a
    submitted revision carried stays, unchanged, with that revision."""
    bid = attachment.bid
    bid_move(bid, "edit", user=user)
    if attachment.removed_at is not None:
        raise ServiceError(f"{attachment.original_name} is already left out of the next revision.")
    _record(bid, "bid.attachment.remove", user, attachment)
    if attachment.frozen:
        attachment.removed_at = timezone.now()
        attachment.save(update_fields=["removed_at"])
    else:
        name = attachment.file.name
        storage = attachment.file.storage
        attachment.delete()
        transaction.on_commit(lambda: storage.delete(name) if name else None)
    _changed(bid)


def attachments_freeze(*, bid: Bid, number: int) -> list[dict[str, object]]:
    """The files revision `number` carries, as it records them; each is frozen from now on.
    Called by `bid_submit` inside its transaction."""
    carried = list(BidAttachment.objects.filter(bid=bid).for_next_revision())
    new = [a.pk for a in carried if a.first_revision is None]
    if new:
        BidAttachment.objects.filter(pk__in=new).update(first_revision=number)
    return [a.frozen_row() for a in carried]
