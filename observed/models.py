"""The files both parties upload about what a reservation's workload lived through, and the
result the buyer names to price it by."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from acceptance.models import Reservation
from core.uploads import StoredUpload


class ObservedKind(models.TextChoices):
    KUEUE = "kueue", "Kueue workloads and events (kubectl get workloads,events -o json)"
    SACCT = "sacct", "Slurm job records (sacct --parsable2)"
    KUBE_NODES = "kube_nodes", "Node snapshot (kubectl get nodes -o json)"
    SINFO = "sinfo", "Node snapshot (sinfo -N -l)"
    RESULTS = "results", "Job results (CSV: time, job, step, tokens, accepted)"


class ObservedState(models.TextChoices):
    QUEUED = "queued", "Queued"
    PARSING = "parsing", "Reading"
    DONE = "done", "Read"
    ERROR = "error", "Cannot be read"


class ObservedUpload(StoredUpload):
    """One file as sent (stored before it is read), and what reading it found or why not."""

    FALLBACK_NAME = "observed.txt"

    reservation = models.ForeignKey(
        Reservation, on_delete=models.CASCADE, related_name="observed_uploads"
    )
    kind = models.CharField(max_length=12, choices=ObservedKind.choices)
    party = models.CharField(max_length=10)  # buyer or provider: whose record it is
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)
    state = models.CharField(
        max_length=10, choices=ObservedState.choices, default=ObservedState.QUEUED
    )
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    error_line = models.PositiveIntegerField(null=True, blank=True)
    error_field = models.CharField(max_length=120, blank=True)
    # engine.observed.serialize's JSON of what the parse found.
    parsed = models.JSONField(default=dict, blank=True)
    parsed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["reservation", "-uploaded_at", "-pk"]

    def __str__(self) -> str:
        return self.original_name

    def upload_dir(self) -> str:
        return f"observed/{self.reservation_id}"


class ResultUnit(models.TextChoices):
    STEP = "step", "Accepted training step"
    TOKEN = "token", "Million trained tokens"
    RUN = "run", "Completed run"


class ResultDefinition(models.Model):
    """The result the buyer pays for, and how many it expected per GPU-hour (the prediction)."""

    reservation = models.OneToOneField(
        Reservation, on_delete=models.CASCADE, related_name="result_definition"
    )
    unit = models.CharField(max_length=8, choices=ResultUnit.choices)
    expected_per_gpu_hour = models.DecimalField(
        "Expected per GPU-hour", max_digits=12, decimal_places=4, null=True, blank=True
    )
    set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    set_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.get_unit_display()} for reservation {self.reservation_id}"
