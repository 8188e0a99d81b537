"""Approval by policy: a buyer organisation sets value thresholds above which publishing a
request or awarding a bid needs one or two approvers; approvers may delegate while away.

A move over a threshold is first asked for (`ApprovalRequest`, frozen with its value and, for
an award, its bid and justification); it happens once enough distinct people approved, never
the one who asked (`bids.services.approvals`).
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models

from bids.models.bids import Bid
from bids.models.requests import CapacityRequest
from orgs.models import Organization


def _threshold(label: str) -> models.DecimalField:
    return models.DecimalField(
        label,
        max_digits=14,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal(0))],
    )


class ApprovalAction(models.TextChoices):
    PUBLISH = "publish", "Publish"
    AWARD = "award", "Award"


class ApprovalPolicy(models.Model):
    """One per buyer organisation; an empty threshold asks nobody."""

    organization = models.OneToOneField(
        Organization, on_delete=models.CASCADE, related_name="approval_policy"
    )
    publish_one_over = _threshold("Publishing needs one approver over (USD budget)")
    publish_two_over = _threshold("Publishing needs two approvers over (USD budget)")
    award_one_over = _threshold("Awarding needs one approver over (USD award value)")
    award_two_over = _threshold("Awarding needs two approvers over (USD award value)")
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )

    def __str__(self) -> str:
        return f"Approval policy of {self.organization_id}"

    def thresholds(self, action: str) -> tuple[Decimal | None, Decimal | None]:
        if action == ApprovalAction.PUBLISH:
            return self.publish_one_over, self.publish_two_over
        return self.award_one_over, self.award_two_over

    def approvers_needed(self, *, action: str, value: Decimal | None) -> int:
        """0, 1 or 2. An unknown value (a request without a budget) counts as over every
        threshold: leaving the budget empty must not skip the approvals."""
        one, two = self.thresholds(action)
        over = [t for t in (one, two) if t is not None and (value is None or value > t)]
        if two is not None and two in over:
            return 2
        return 1 if over else 0


class Delegation(models.Model):
    """While away, an approver's approvals may be given by a colleague, from one day to another
    (both included); the approval records "approved by the delegate for the approver"."""

    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="delegations"
    )
    delegator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="delegations_given"
    )
    delegate = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="delegations_taken"
    )
    starts_on = models.DateField()
    ends_on = models.DateField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-starts_on", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(ends_on__gte=models.F("starts_on")),
                name="delegation_ends_after_start",
            ),
            models.CheckConstraint(
                condition=~models.Q(delegator=models.F("delegate")),
                name="delegation_to_someone_else",
            ),
        ]

    def __str__(self) -> str:
        return f"Delegation {self.pk}"

    def active_on(self, day: date) -> bool:
        return self.starts_on <= day <= self.ends_on


class ApprovalStatus(models.TextChoices):
    PENDING = "pending", "Awaiting approval"
    APPROVED = "approved", "Approved"
    DECLINED = "declined", "Declined"
    DONE = "done", "Approved and carried out"
    WITHDRAWN = "withdrawn", "Withdrawn"


class ApprovalRequest(models.Model):
    request = models.ForeignKey(
        CapacityRequest, on_delete=models.CASCADE, related_name="approval_requests"
    )
    action = models.CharField(max_length=8, choices=ApprovalAction.choices)
    bid = models.ForeignKey(Bid, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    # What the approvers see and what the move must still be worth when it happens.
    value = models.DecimalField(null=True, blank=True, max_digits=16, decimal_places=2)
    needed = models.PositiveSmallIntegerField()
    justification = models.TextField(blank=True, max_length=4_000)
    view = models.CharField(max_length=40, blank=True)
    status = models.CharField(
        max_length=10, choices=ApprovalStatus.choices, default=ApprovalStatus.PENDING
    )
    asked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    asked_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decline_reason = models.TextField(blank=True, max_length=4_000)

    class Meta:
        ordering = ["-asked_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["request", "action"],
                condition=models.Q(status__in=["pending", "approved"]),
                name="one_live_approval_per_move",
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_action_display()} approval {self.pk}"


class Approval(models.Model):
    approval_request = models.ForeignKey(
        ApprovalRequest, on_delete=models.CASCADE, related_name="approvals"
    )
    approver = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    # Set when the approver acts as a delegate: the approval counts as this person's.
    on_behalf_of = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["at", "pk"]

    def __str__(self) -> str:
        return f"Approval {self.pk}"

    @property
    def principal_id(self) -> int:
        return self.on_behalf_of_id or self.approver_id
