"""Release canaries: before a provider rolls a driver, firmware or image change out to a
reservation's nodes, it runs the reservation's fixture on a few of them and uploads the result.

A canary's evidence goes through the burn-in pipeline unchanged: its one `BurnInRun` (with no
reservation and no pilot) stores, parses and checks the files against the reservation's fixture
version, scoped to the canary's nodes. The change it guards, with its window and the buyer's
answer, is delivery's (`delivery.PlannedChange`).
"""

from __future__ import annotations

from dataclasses import replace

from django.conf import settings
from django.db import models

from acceptance.models.burnin import Reservation
from acceptance.models.fixtures import FixtureVersion
from engine.evidence.checks import Spec, within_allocation


class Canary(models.Model):
    """The fixture run on a subset of a reservation's nodes; taken until `closes_at`."""

    reservation = models.ForeignKey(Reservation, on_delete=models.CASCADE, related_name="canaries")
    # The node labels the provider runs the canary on: at least one, never every node.
    nodes = models.JSONField(default=list)
    # Evidence is taken until the change window opens: what the buyer reviews is what rolls out.
    closes_at = models.DateTimeField()
    # For a driver change, the version the canary nodes must run: evidence still showing the old
    # driver proves nothing about the new one.
    driver_version = models.CharField(max_length=120, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["reservation", "created_at", "pk"]

    def __str__(self) -> str:
        return f"Canary on {', '.join(self.nodes)} ({self.reservation})"

    @property
    def fixture_version(self) -> FixtureVersion:
        return self.reservation.fixture_version

    def check_spec(self) -> Spec:
        """The reservation's check spec (a lot's, on its own nodes) cut to the canary's nodes:
        the same thresholds, the world size of the nodes that ran it, and for a driver change the
        new driver version."""
        spec = self.reservation.check_spec()
        if self.driver_version:
            spec = replace(spec, driver_version=self.driver_version)
        return within_allocation(spec, nodes=len(self.nodes), gpus_per_node=spec.gpus_per_node)
