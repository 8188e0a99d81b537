"""Planned maintenance on an accepted reservation: the provider announces a window; with less
notice than the terms require it is "short notice" and counts as downtime unless the buyer
agrees to it."""

from __future__ import annotations

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
