"""An organisation's data export: one job per press of "Export our data"; the worker writes the
zip to storage and the job row keeps it for download."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from orgs.models import Organization


class ExportStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


def export_path(instance: ExportJob, filename: str) -> str:
    return f"exports/{instance.organization_id}/{instance.pk}/{filename}"


class ExportJob(models.Model):
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="export_jobs"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    status = models.CharField(
        max_length=10, choices=ExportStatus.choices, default=ExportStatus.QUEUED
    )
    error = models.TextField(blank=True)
    file = models.FileField(upload_to=export_path, max_length=300, blank=True)
    size = models.PositiveBigIntegerField(default=0)
    sha256 = models.CharField(max_length=64, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    # When it was last sent to the queue (a retry sends it again): see core.jobs.
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"Export {self.pk} of {self.organization_id} ({self.status})"

    @property
    def in_progress(self) -> bool:
        return self.status in (ExportStatus.QUEUED, ExportStatus.RUNNING)
