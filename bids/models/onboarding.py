"""A buyer's invitation of a provider that has no account yet: an e-mail with a signed,
expiring link, from which the recipient creates the provider organisation and its first
administrator, and lands invited to the request."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

from bids.models.requests import CapacityRequest
from orgs.models import Organization


def supplier_invitation_expiry() -> datetime:
    return timezone.now() + timedelta(days=settings.SUPPLIER_INVITATION_DAYS)


class SupplierInvitation(models.Model):
    request = models.ForeignKey(
        CapacityRequest, on_delete=models.CASCADE, related_name="supplier_invitations"
    )
    email = models.EmailField()  # stored lower-case
    company = models.CharField(
        "Company", max_length=120, blank=True, help_text="Suggested as the organisation's name."
    )
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(default=supplier_invitation_expiry)
    emailed_at = models.DateTimeField(null=True, blank=True)
    used_at = models.DateTimeField(null=True, blank=True)
    # Set by the sweep (bids.tasks.expire_supplier_invitations) to the moment the link stopped
    # working; the row stays, so the buyer's list and the record keep it.
    expired_at = models.DateTimeField(null=True, blank=True)
    # The organisation created from the link, once used.
    provider = models.ForeignKey(
        Organization, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.email} → {self.request.title}"

    @property
    def is_expired(self) -> bool:
        if self.used_at is not None:
            return False
        return self.expired_at is not None or self.expires_at <= timezone.now()
