"""Fixture (one per request, or a lot's own), its versions, and providers' acknowledgements
per bid (and per lot, for a lot's own fixture or terms)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from bids.models import Bid, CapacityRequest, Lot
from contracts.models import HandoffTermsRevision


class Fixture(models.Model):
    """The request's fixture (`request` set), or a lot's own (`lot` set): never both. A lot
    without one shares the request's."""

    request = models.OneToOneField(
        CapacityRequest, on_delete=models.CASCADE, null=True, blank=True, related_name="fixture"
    )
    lot = models.OneToOneField(
        Lot, on_delete=models.CASCADE, null=True, blank=True, related_name="fixture"
    )
    # The version providers download now; older versions stay for acknowledgements.
    current_number = models.PositiveIntegerField(default=1)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(request__isnull=False, lot__isnull=True)
                | models.Q(request__isnull=True, lot__isnull=False),
                name="fixture_of_request_or_lot",
            )
        ]

    def __str__(self) -> str:
        if self.lot is not None:
            return f"Fixture for lot {self.lot.number} of {self.lot.request.title}"
        return f"Fixture for {self.capacity_request.title}"

    @property
    def capacity_request(self) -> CapacityRequest:
        """The request the fixture belongs to, directly or through its lot."""
        if self.lot is not None:
            return self.lot.request
        assert self.request is not None
        return self.request


class FrozenFixtureVersionError(Exception):
    """A version a bid has acknowledged is part of that bid; it never changes."""


class FixtureVersionQuerySet(models.QuerySet["FixtureVersion"]):
    def update(self, **kwargs: Any) -> int:
        raise FrozenFixtureVersionError("Change a fixture version through fixture_save().")


class FixtureVersion(models.Model):
    fixture = models.ForeignKey(Fixture, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    template = models.CharField(max_length=40)
    spec = models.JSONField()
    spec_sha256 = models.CharField(max_length=64)
    manifest = models.JSONField(help_text="The bundle manifest: SHA-256 per file.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = FixtureVersionQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["fixture", "number"], name="unique_fixture_version")
        ]
        ordering = ["fixture", "-number"]

    def __str__(self) -> str:
        return f"Fixture v{self.number} ({self.spec_sha256[:12]})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding and self.is_referenced:
            raise FrozenFixtureVersionError(
                f"Fixture version {self.number} is acknowledged by a bid and cannot change."
            )
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        if self.is_referenced:
            raise FrozenFixtureVersionError(
                f"Fixture version {self.number} is acknowledged by a bid and cannot be deleted."
            )
        return super().delete(*args, **kwargs)

    @property
    def is_referenced(self) -> bool:
        return self.pk is not None and self.acknowledgements.exists()


class AckStatus(models.TextChoices):
    ACCEPTED = "accepted", "Accepted"
    ACCEPTED_WITH_EXCEPTIONS = "accepted_with_exceptions", "Accepted with exceptions"


class AcknowledgementQuerySet(models.QuerySet["Acknowledgement"]):
    def of(self, lot: Lot | None) -> AcknowledgementQuerySet:
        """Those of one lot's own fixture and terms, or (None) of the request's: a reader of
        either never counts the other's."""
        return self.filter(lot=lot) if lot is not None else self.filter(lot__isnull=True)

    def of_request(self) -> AcknowledgementQuerySet:
        return self.of(None)


class Acknowledgement(models.Model):
    """What a provider agreed to for one bid. Append-only: the newest row per (bid, lot) counts.

    `lot` empty: the request's fixture and terms. `lot` set: that lot's own fixture and/or
    terms (a lot that shares the request's has no acknowledgement of its own)."""

    bid = models.ForeignKey(Bid, on_delete=models.CASCADE, related_name="acknowledgements")
    lot = models.ForeignKey(
        Lot, on_delete=models.CASCADE, null=True, blank=True, related_name="acknowledgements"
    )
    fixture_version = models.ForeignKey(
        FixtureVersion,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="acknowledgements",
    )
    terms_revision = models.ForeignKey(
        HandoffTermsRevision,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="acknowledgements",
    )
    status = models.CharField(max_length=30, choices=AckStatus.choices)
    # [{"text": str, "field": str}]; "field" is "" or a spec path / "terms.<name>".
    exceptions = models.JSONField(default=list, blank=True)
    # The provider's side of the terms' "named owners on both sides": whom the buyer calls.
    provider_owner_name = models.CharField("Provider's incident owner", max_length=120, blank=True)
    provider_owner_contact = models.CharField(
        "Provider's contact",
        max_length=200,
        blank=True,
        help_text="E-mail, phone or on-call alias.",
    )
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True)

    objects = AcknowledgementQuerySet.as_manager()

    class Meta:
        ordering = ["bid", "-at", "-pk"]
        indexes = [models.Index(fields=["bid", "-at"], name="ack_bid_latest")]

    def __str__(self) -> str:
        return f"{self.get_status_display()} — {self.bid}"

    def record(self) -> dict[str, Any]:
        """What was agreed, as the contract snapshot and the API print it (JSON-safe)."""
        return {
            "status": self.status,
            "fixture_version": self.fixture_version.number if self.fixture_version else None,
            "terms_revision": self.terms_revision.number if self.terms_revision else None,
            "exceptions": self.exceptions,
            "provider_owner_name": self.provider_owner_name,
            "provider_owner_contact": self.provider_owner_contact,
            "at": self.at.isoformat(),
        }
