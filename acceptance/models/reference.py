"""A fixture version's reference runs: the buyer's CPU dry run, or a run on another cluster kept
as a pre-award baseline. The bytes are stored first; the parse and the checks are kept with it."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from acceptance.models.fixtures import FixtureVersion
from core.uploads import StoredUpload


class ReferenceSource(models.TextChoices):
    CPU_DRY_RUN = "cpu_dry_run", "CPU dry run (gloo)"
    OTHER_CLUSTER = "other_cluster", "Run on another cluster (pre-award baseline)"


class FixtureReference(StoredUpload):
    FALLBACK_NAME = "fixture-result.jsonl"

    fixture_version = models.ForeignKey(
        FixtureVersion, on_delete=models.CASCADE, related_name="references"
    )
    source = models.CharField(max_length=20, choices=ReferenceSource.choices)
    # Which cluster, site or provider ran it (a pre-award baseline); empty for a dry run.
    cluster = models.CharField(max_length=200, blank=True)
    parsed = models.JSONField(null=True, blank=True)
    summary = models.JSONField(default=dict, blank=True)
    checks = models.JSONField(default=list, blank=True)
    passed = models.BooleanField(null=True)
    error = models.TextField(blank=True)
    error_line = models.PositiveIntegerField(null=True, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["fixture_version", "-uploaded_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.get_source_display()}: {self.original_name}"

    def upload_dir(self) -> str:
        return f"fixtures/version-{self.fixture_version_id}/references"
