"""Step-time uploads that may open an S2: stored (with SHA-256) before they are read, kept with
what the detector found, whether or not an incident followed."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from acceptance.models.burnin import Reservation
from core.uploads import StoredUpload
from incidents.models.incident import Incident


class StepTimesUpload(StoredUpload):
    reservation = models.ForeignKey(
        Reservation, on_delete=models.CASCADE, related_name="step_time_uploads"
    )
    incident = models.ForeignKey(
        Incident, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    rank_map_name = models.CharField(max_length=255, blank=True)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["reservation", "-uploaded_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.original_name} (step times)"

    def upload_dir(self) -> str:
        return f"incidents/step-times/{self.reservation_id}"
