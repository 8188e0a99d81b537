"""Planned maintenance on an accepted reservation: the provider announces a window; with less
notice than the terms require it is "short notice" and counts as downtime unless the buyer
agrees to it. A planned driver, firmware or image change rolls out inside such a window, with its
canary run first."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models

from acceptance.models import Reservation


class MaintenanceWindow(models.Model):
    reservation = models.ForeignKey(
        Reservation, on_delete=models.CASCADE, related_name="maintenance_windows"
    )
    # Node labels; empty is the whole allocation.
    nodes = models.JSONField(default=list, blank=True)
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    reason = models.TextField()
    announced_at = models.DateTimeField()
    announced_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    # Frozen at the announcement: the notice the terms required, and whether it fell short.
    notice_hours = models.PositiveIntegerField()
    short_notice = models.BooleanField(default=False)
    agreed_at = models.DateTimeField(null=True, blank=True)
    agreed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["reservation", "starts_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(ends_at__gt=models.F("starts_at")),
                name="maintenance_ends_after_start",
            )
        ]

    def __str__(self) -> str:
        return f"Maintenance {self.starts_at:%Y-%m-%d %H:%M}–{self.ends_at:%H:%M} UTC"

    @property
    def state(self) -> str:
        """ "planned" (notice given), "awaiting" (short notice, not agreed) or "agreed"."""
        if not self.short_notice:
            return "planned"
        return "agreed" if self.agreed_at is not None else "awaiting"

    @property
    def excluded(self) -> bool:
        """Agreed maintenance leaves the availability sums; short notice not agreed is down."""
        return self.state != "awaiting"

    @property
    def node_label(self) -> str:
        return ", ".join(self.nodes) if self.nodes else "whole allocation"


class ChangeKind(models.TextChoices):
    DRIVER = "driver", "GPU driver"
    FIRMWARE = "firmware", "Firmware"
    IMAGE = "image", "Image or operating system"
    OTHER = "other", "Other"


class PlannedChange(models.Model):
    """A provider's planned driver, firmware or image change on a reservation, rolled out inside
    a maintenance window and announced with its canary. Its two-party story (announced, accepted
    or objected to, rolled out) is an entry of the incident record's change log; this row keeps
    what the change log does not: versions, nodes, the window, the canary, the outcome."""

    reservation = models.ForeignKey(
        Reservation, on_delete=models.CASCADE, related_name="planned_changes"
    )
    window = models.ForeignKey(
        MaintenanceWindow, on_delete=models.PROTECT, related_name="planned_changes"
    )
    kind = models.CharField(max_length=10, choices=ChangeKind.choices)
    component = models.CharField(max_length=120)
    from_version = models.CharField(max_length=120)
    to_version = models.CharField(max_length=120)
    # Node labels the change reaches; empty is the whole allocation.
    nodes = models.JSONField(default=list, blank=True)
    description = models.TextField(blank=True)
    announced_at = models.DateTimeField()
    announced_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    notice_hours = models.PositiveIntegerField()
    canary = models.OneToOneField(
        "acceptance.Canary", on_delete=models.PROTECT, related_name="planned_change"
    )
    entry = models.OneToOneField(
        "incidents.ChangeLogEntry", on_delete=models.PROTECT, related_name="planned_change"
    )
    # Written once, when the window opens: the canary's verdict then and whether the change
    # rolled out without a passing canary the buyer did not object to.
    opened_at = models.DateTimeField(null=True, blank=True)
    canary_passed = models.BooleanField(null=True, blank=True)
    unguarded = models.BooleanField(default=False)
    outcome = models.TextField(blank=True)

    class Meta:
        ordering = ["reservation", "window__starts_at", "pk"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.from_version} → {self.to_version}"

    @property
    def starts_at(self) -> datetime:
        return self.window.starts_at

    @property
    def node_label(self) -> str:
        return ", ".join(self.nodes) if self.nodes else "whole allocation"
