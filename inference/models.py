"""Served-responses files on a reservation: stored first, parsed by a worker, and kept with the
figures they gave against the offer's promised envelope (engine.inference)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from acceptance.models import Reservation
from core.uploads import StoredUpload
from engine.inference.outcome import figures_from_json


class ServedState(models.TextChoices):
    QUEUED = "queued", "Queued"
    PARSING = "parsing", "Reading"
    PARSED = "parsed", "Read"
    UNREADABLE = "unreadable", "Unreadable"
    ERROR = "error", "Processing failed"


class ServedResponsesFile(StoredUpload):
    reservation = models.ForeignKey(
        Reservation, on_delete=models.CASCADE, related_name="served_files"
    )
    # Who uploaded it: "buyer" or "provider" (both parties may measure the service).
    party = models.CharField(max_length=8)
    label = models.CharField(max_length=120, blank=True)
    kind = models.CharField(max_length=20, blank=True)
    state = models.CharField(
        max_length=10, choices=ServedState.choices, default=ServedState.QUEUED, db_index=True
    )
    error = models.TextField(blank=True)
    error_line = models.PositiveIntegerField(null=True, blank=True)
    # engine.inference.InferenceOutcome.as_json(), against the promise of the awarded revision.
    outcome = models.JSONField(null=True, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)
    # When the latest parse was queued: a queued file older than the broker's redelivery
    # window was lost and is failed visibly (inference.jobs).
    queued_at = models.DateTimeField(null=True, blank=True)
    state_changed_at = models.DateTimeField(auto_now=True)
    attempts = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-uploaded_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["reservation", "sha256"], name="served_file_unique_per_reservation"
            )
        ]

    def __str__(self) -> str:
        return self.label or self.original_name

    def upload_dir(self) -> str:
        return f"served/reservation-{self.reservation_id}"

    @property
    def figures(self) -> dict[str, Any] | None:
        return figures_from_json(self.outcome) if self.outcome else None

    @property
    def in_progress(self) -> bool:
        return self.state in (ServedState.QUEUED, ServedState.PARSING)
