"""A baseline step time the buyer proposes from its own job, in place of the hand-over burn-in's:
the provider's approver or admin accepts or rejects it. Only an accepted one is what the S2
detector measures against."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from acceptance.models.burnin import Reservation
from core.uploads import StoredUpload


class BaselineProposalStatus(models.TextChoices):
    PENDING = "pending", "Proposed, awaiting the provider"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"


class BaselineProposal(StoredUpload):
    reservation = models.ForeignKey(
        Reservation, on_delete=models.CASCADE, related_name="baseline_proposals"
    )
    step_time_s = models.FloatField()
    steps = models.PositiveIntegerField()
    reason = models.TextField()
    status = models.CharField(
        max_length=10,
        choices=BaselineProposalStatus.choices,
        default=BaselineProposalStatus.PENDING,
    )
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    proposed_at = models.DateTimeField()
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["reservation", "-proposed_at", "-pk"]
        constraints = [
            # One proposal at a time: the provider answers one before the buyer sends another.
            models.UniqueConstraint(
                fields=["reservation"],
                condition=models.Q(status="pending"),
                name="one_pending_baseline_proposal",
            )
        ]

    def __str__(self) -> str:
        return f"Baseline {self.step_time_s:g} s ({self.status})"

    def upload_dir(self) -> str:
        return f"incidents/baselines/{self.reservation_id}"
