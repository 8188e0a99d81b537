"""Acceptance over a failing gate, in two steps: a buyer asks, a second buyer-side approver
decides. The request freezes the blocking checks it waives, so an approval always approves what
was asked: if the run's verdict changes in between, the approval is refused."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from acceptance.models.burnin import BurnInRun, Reservation


class OverrideOutcome(models.TextChoices):
    PENDING = "pending", "Awaiting a second approver"
    APPROVED = "approved", "Approved"
    DECLINED = "declined", "Declined"
    # The buyer accepted a passing run or rejected the reservation while it was pending.
    WITHDRAWN = "withdrawn", "Withdrawn"


class OverrideRequest(models.Model):
    reservation = models.ForeignKey(
        Reservation, on_delete=models.CASCADE, related_name="override_requests"
    )
    run = models.ForeignKey(BurnInRun, on_delete=models.PROTECT, related_name="+")
    reason = models.TextField()
    # The failing blocking checks, as the requester saw and ticked them:
    # [{"code", "title", "status", "measured", "expected"}], frozen.
    waived = models.JSONField(default=list)
    evidence_version = models.PositiveIntegerField()
    gate_summary = models.TextField(blank=True)
    # The buyer's explicit choice: the overridden run becomes the recovery baseline.
    baseline_from_run = models.BooleanField(default=False)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    requested_at = models.DateTimeField()
    outcome = models.CharField(
        max_length=10,
        choices=OverrideOutcome.choices,
        default=OverrideOutcome.PENDING,
        db_index=True,
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decline_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["reservation", "requested_at", "pk"]
        constraints = [
            # A pending request blocks a second one, even when two buyers click at once.
            models.UniqueConstraint(
                fields=["reservation"],
                condition=models.Q(outcome="pending"),
                name="one_pending_override_per_reservation",
            )
        ]

    def __str__(self) -> str:
        return f"Override request ({self.get_outcome_display()}) — {self.reservation}"

    @property
    def is_pending(self) -> bool:
        return self.outcome == OverrideOutcome.PENDING

    @property
    def waived_codes(self) -> list[str]:
        return [str(w.get("code")) for w in self.waived]
