from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from bids.models.bids import Bid, FrozenRevisionError
from core.uploads import StoredUpload


class BidAttachmentQuerySet(models.QuerySet["BidAttachment"]):
    def for_next_revision(self) -> BidAttachmentQuerySet:
        """The files the next submit will carry, in the order they were attached."""
        return self.filter(removed_at__isnull=True).order_by("uploaded_at", "pk")


class BidAttachment(StoredUpload):
    """A file a provider attaches to its bid: kept as sent, its kind read from its bytes.

    Once a submitted revision carried it (`first_revision`), it is part of that record and never
    changes; removing it then only leaves it out of the next revision (`removed_at`)."""

    FALLBACK_NAME = "attachment"

    bid = models.ForeignKey(Bid, on_delete=models.PROTECT, related_name="attachments")
    content_type = models.CharField(max_length=40)
    description = models.CharField(max_length=200, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)
    first_revision = models.PositiveIntegerField(null=True, blank=True)
    removed_at = models.DateTimeField(null=True, blank=True)

    objects = BidAttachmentQuerySet.as_manager()

    class Meta:
        ordering = ["bid", "uploaded_at", "pk"]

    def __str__(self) -> str:
        return self.original_name

    def upload_dir(self) -> str:
        return f"bids/bid-{self.bid_id}/attachments"

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        if self.frozen:
            raise FrozenRevisionError(
                f"{self.original_name} is part of revision {self.first_revision}; it stays."
            )
        return super().delete(*args, **kwargs)

    @property
    def frozen(self) -> bool:
        return self.first_revision is not None

    def frozen_row(self) -> dict[str, Any]:
        """What a revision records of the file: enough to find it and prove its bytes."""
        return {
            "id": self.pk,
            "name": self.original_name,
            "size": self.size,
            "sha256": self.sha256,
            "content_type": self.content_type,
            "description": self.description,
        }
