"""The audit trail: an append-only chain of entries, each holding the SHA-256 of the one before.

`AuditEntry` refuses updates and deletes (like `bids.BidRevision`); `AuditHead` is the one row
that writers lock to append, so two transactions never give the same sequence number or link.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from audit.chain import GENESIS, HASHED_FIELDS
from orgs.models import Organization


class Party(models.TextChoices):
    BUYER = "buyer", "Buyer"
    PROVIDER = "provider", "Provider"
    SYSTEM = "system", "System"


class AppendOnlyError(Exception):
    """An audit entry is a record of what happened; it never changes and is never removed."""


class AuditEntryQuerySet(models.QuerySet["AuditEntry"]):
    def update(self, **kwargs: Any) -> int:
        raise AppendOnlyError("The audit trail is append-only; entries cannot be updated.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError("The audit trail is append-only; entries cannot be deleted.")


class AuditEntry(models.Model):
    seq = models.PositiveBigIntegerField(unique=True)
    at = models.DateTimeField()
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    actor_name = models.CharField(max_length=150, blank=True)  # as it was when they acted
    org = models.ForeignKey(
        Organization, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    party = models.CharField(max_length=10, choices=Party.choices)
    action = models.CharField(max_length=60)
    obj_key = models.CharField("object", max_length=60, db_index=True)
    # The request the object belongs to (bids sits above audit: an id, not a foreign key).
    request_id = models.PositiveBigIntegerField(null=True, blank=True, db_index=True)
    # Who may read it: the buyer, one provider, every invited provider (`shared`).
    buyer_org = models.ForeignKey(
        Organization, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    provider_org = models.ForeignKey(
        Organization, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    shared = models.BooleanField(default=False)
    hidden_while_sealed = models.BooleanField(default=False)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    reason = models.TextField(blank=True)
    prev_sha256 = models.CharField(max_length=64)
    sha256 = models.CharField(max_length=64, unique=True)

    objects = AuditEntryQuerySet.as_manager()

    class Meta:
        ordering = ["seq"]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"#{self.seq} {self.action} {self.obj_key}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnlyError(f"Audit entry {self.seq} is on the record and cannot change.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError(f"Audit entry {self.seq} is on the record and cannot be deleted.")

    def hashed_fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in HASHED_FIELDS}


class AuditHead(models.Model):
    """One row: the last entry's sequence number and hash. Appending locks it first."""

    seq = models.PositiveBigIntegerField(default=0)
    sha256 = models.CharField(max_length=64, default=GENESIS)

    def __str__(self) -> str:
        return f"head at {self.seq}"
