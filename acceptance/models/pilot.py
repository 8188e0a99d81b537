"""Pilots before the award: a short reservation on which a shortlisted bid's cluster runs the
fixture, `nvidia-smi topo -m`, `nvbandwidth`, a fabric probe and the buyer's application.

A pilot's evidence goes through the burn-in pipeline unchanged: its one `BurnInRun` (with no
reservation) stores, parses and checks the files against the request's fixture version. What
the pilot adds is the verified figures read from that evidence, set beside the bid's claims.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from acceptance.models.fixtures import FixtureVersion
from bids.models import Bid, CapacityRequest
from core.limits import TEXT_LIMIT

#: The longest pilot window: a pilot is a short trial, not a free reservation.
PILOT_MAX_DAYS = 14


class Pilot(models.Model):
    """A buyer's invitation of one shortlisted bid to a pilot, and what it verified.

    Only the buyer and the invited provider ever read it; a rival never does."""

    bid = models.OneToOneField(Bid, on_delete=models.PROTECT, related_name="pilot")
    fixture_version = models.ForeignKey(
        FixtureVersion, on_delete=models.PROTECT, related_name="pilots"
    )
    starts_on = models.DateField("First day")
    ends_on = models.DateField("Last day")
    instructions = models.TextField(
        "The application run",
        max_length=TEXT_LIMIT,
        blank=True,
        help_text="What the buyer's application run is and how to start it.",
    )
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    invited_at = models.DateTimeField(auto_now_add=True)
    # The figures read from the evidence of the latest finished check (engine pilot_figures),
    # and the run's evidence version they reflect.
    figures = models.JSONField(default=list, blank=True)
    figures_version = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["bid__request", "invited_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(ends_on__gte=models.F("starts_on")),
                name="pilot_ends_after_start",
            )
        ]

    def __str__(self) -> str:
        return f"Pilot: {self.bid.provider.name} for {self.bid.request.title}"

    @property
    def request(self) -> CapacityRequest:
        return self.bid.request


class PilotScoring(models.Model):
    """The buyer's choice, per request, to score bids on their pilots' verified figures where
    a pilot verified them (the claims otherwise). Absent means claims only."""

    request = models.OneToOneField(
        CapacityRequest, on_delete=models.CASCADE, related_name="pilot_scoring"
    )
    use_verified = models.BooleanField(default=False)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    changed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Pilot scoring for {self.request.title}: verified={self.use_verified}"
