"""A failed run: its uploaded files and the analysis the worker writes on the row."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from acceptance.models.burnin import Reservation
from core.uploads import StoredUpload


class FailedRunState(models.TextChoices):
    # Stored, behind the organisation's analysis in flight (one at a time per organisation).
    WAITING = "waiting", "Waiting"
    QUEUED = "queued", "Queued"
    ANALYSING = "analysing", "Analysing"
    ANALYSED = "analysed", "Analysed"
    UNREADABLE = "unreadable", "Unreadable"
    ERROR = "error", "Analysis failed"


class FailedRun(models.Model):
    reservation = models.ForeignKey(
        Reservation, on_delete=models.CASCADE, related_name="failed_runs"
    )
    label = models.CharField(max_length=120)
    world_size = models.PositiveIntegerField(null=True, blank=True)
    state = models.CharField(
        max_length=10, choices=FailedRunState.choices, default=FailedRunState.QUEUED
    )
    error = models.TextField(blank=True)
    analysis = models.JSONField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)
    # When it was last sent to the queue: a run that waited its turn, or was retried, is judged
    # "never picked up" from here, not from its upload.
    queued_at = models.DateTimeField(null=True, blank=True)
    analysed_at = models.DateTimeField(null=True, blank=True)
    # When the current attempt started: the reaper fails an attempt that outlived its limit.
    analysis_started_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "acceptance_failedrun"  # the table and its rows stay put (core/model_moves.py)
        ordering = ["reservation", "-uploaded_at", "-pk"]

    def __str__(self) -> str:
        return self.label

    @property
    def in_progress(self) -> bool:
        return self.state in (
            FailedRunState.WAITING,
            FailedRunState.QUEUED,
            FailedRunState.ANALYSING,
        )


class FailedRunFile(StoredUpload):
    """One uploaded file: an archive, a single log or dump, or the rank→node map."""

    FALLBACK_NAME = "bundle"

    failed_run = models.ForeignKey(FailedRun, on_delete=models.CASCADE, related_name="files")
    is_rank_map = models.BooleanField(default=False)

    class Meta:
        db_table = (
            "acceptance_failedrunfile"  # the table and its rows stay put (core/model_moves.py)
        )
        ordering = ["failed_run", "pk"]

    def __str__(self) -> str:
        return self.original_name

    def upload_dir(self) -> str:
        return f"failed-runs/{self.failed_run_id}"
