"""The incident record both parties keep: the change log (configuration changes and workarounds
on an incident, and planned releases on a reservation, each proposed by one party and approved
by the other) and the provider's repair estimates (every
revision kept)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from acceptance.models import Reservation
from incidents.models.incident import Incident, IncidentEvidence


class ChangeKind(models.TextChoices):
    CONFIG = "config", "Configuration change"
    WORKAROUND = "workaround", "Workaround"
    # A planned driver, firmware or image change, announced on the reservation with its canary.
    RELEASE = "release", "Planned release"


class ChangeStatus(models.TextChoices):
    PROPOSED = "proposed", "Proposed, awaiting the other party"
    APPROVED = "approved", "Approved"
    DECLINED = "declined", "Declined"
    APPLIED = "applied", "Approved and applied"


class ChangeLogEntry(models.Model):
    """One change: proposed by one party, approved or declined by the other; applied only once
    approved. The parties are stored as they acted ("buyer" / "provider"). An entry belongs to an
    incident, or (a planned release, outside any incident) to the reservation itself."""

    incident = models.ForeignKey(
        Incident, on_delete=models.CASCADE, null=True, blank=True, related_name="changes"
    )
    reservation = models.ForeignKey(
        Reservation, on_delete=models.CASCADE, null=True, blank=True, related_name="changes"
    )
    kind = models.CharField(max_length=12, choices=ChangeKind.choices)
    what = models.TextField()
    status = models.CharField(
        max_length=10, choices=ChangeStatus.choices, default=ChangeStatus.PROPOSED
    )
    proposed_party = models.CharField(max_length=10)
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    proposed_at = models.DateTimeField()
    decided_party = models.CharField(max_length=10, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.TextField(blank=True)
    applied_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    applied_at = models.DateTimeField(null=True, blank=True)
    # The checks rerun after the change: free text, plus the recovery evidence rows it names.
    checks_rerun = models.TextField(blank=True)
    evidence = models.ManyToManyField(IncidentEvidence, blank=True, related_name="changes")

    class Meta:
        ordering = ["proposed_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(incident__isnull=False, reservation__isnull=True)
                | models.Q(incident__isnull=True, reservation__isnull=False),
                name="changelogentry_incident_or_reservation",
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk} ({self.status})"

    @property
    def other_party(self) -> str:
        return "buyer" if self.proposed_party == "provider" else "provider"


class CauseClass(models.TextChoices):
    GPU = "gpu", "GPU"
    NVLINK = "nvlink", "NVLink / NVSwitch"
    NIC = "nic", "NIC or InfiniBand link"
    FABRIC = "fabric", "Switch / fabric"
    HOST = "host", "Host (CPU, memory, PSU, board)"
    STORAGE = "storage", "Storage"
    SOFTWARE = "software", "Driver / firmware / software"
    FACILITY = "facility", "Facility (power, cooling)"
    UNKNOWN = "unknown", "Unknown"


class Confidence(models.TextChoices):
    LOW = "low", "Low"
    MEDIUM = "medium", "Medium"
    HIGH = "high", "High"


class RepairEstimate(models.Model):
    """One revision of the provider's repair estimate; a new estimate is a new row."""

    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="estimates")
    revision = models.PositiveIntegerField()
    cause_class = models.CharField(max_length=10, choices=CauseClass.choices)
    parts = models.JSONField(default=list, blank=True)
    eta = models.DateTimeField()
    confidence = models.CharField(max_length=6, choices=Confidence.choices)
    note = models.TextField(blank=True)
    posted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    posted_at = models.DateTimeField()

    class Meta:
        ordering = ["incident", "-revision"]
        constraints = [
            models.UniqueConstraint(
                fields=["incident", "revision"], name="repair_estimate_revision_once"
            )
        ]

    def __str__(self) -> str:
        return f"Repair estimate r{self.revision} for incident #{self.incident_id}"
