"""A request's lots: blocks of capacity providers bid on one by one.

A request without lots is one implicit lot (its own allocation and term), as it always was.
With lots, each names its own capacity and term; a lot's empty dates and region fall back to
the request's. The lot's number (1, 2, 3…) is how bids and bundle conditions name it."""

from __future__ import annotations

from datetime import date

from django.core.exceptions import ValidationError
from django.db import models
from django.template.defaultfilters import pluralize

from bids.choices import Region
from bids.models import bounds
from bids.models.requests import CapacityRequest
from engine.lots import LotSpec

# What a lot states, in the order forms, the API and the audit list them.
LOT_FIELDS = (
    "name",
    "nodes",
    "gpus_per_node",
    "single_fabric_domain",
    "region",
    "reservation_start",
    "reservation_end",
    "divisible",
    "min_block_nodes",
)


class Lot(models.Model):
    request = models.ForeignKey(CapacityRequest, on_delete=models.CASCADE, related_name="lots")
    number = models.PositiveIntegerField()
    name = models.CharField(max_length=120, help_text="What the lot is for, e.g. 'Pre-training'.")
    nodes = models.PositiveIntegerField(validators=bounds.NODES)
    gpus_per_node = models.PositiveIntegerField("GPUs per node", validators=bounds.GPUS_PER_NODE)
    single_fabric_domain = models.BooleanField(
        "Single fabric domain",
        default=True,
        help_text="The whole lot (or each provider's block of it) sits in one fabric domain.",
    )
    region = models.CharField(
        max_length=12,
        choices=Region.choices,
        blank=True,
        help_text="Leave empty for any of the request's acceptable regions.",
    )
    reservation_start = models.DateField(
        null=True, blank=True, help_text="Leave empty to use the request's start."
    )
    reservation_end = models.DateField(
        null=True, blank=True, help_text="Leave empty to use the request's end."
    )
    divisible = models.BooleanField(
        default=False,
        help_text="Divisible lots may go to several providers in whole nodes; indivisible ones "
        "go whole to one provider, in one fabric.",
    )
    min_block_nodes = models.PositiveIntegerField(
        "Minimum block (nodes)",
        null=True,
        blank=True,
        validators=bounds.NODES,
        help_text="Divisible lots only: the fewest nodes one provider may take.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["request", "number"]
        constraints = [
            models.UniqueConstraint(fields=["request", "number"], name="unique_lot_number")
        ]

    def __str__(self) -> str:
        return f"Lot {self.number}: {self.name}"

    @property
    def gpu_count(self) -> int:
        return (self.nodes or 0) * (self.gpus_per_node or 0)

    @property
    def start(self) -> date:
        return self.reservation_start or self.request.reservation_start

    @property
    def end(self) -> date:
        return self.reservation_end or self.request.reservation_end

    @property
    def term_hours(self) -> int:
        """Reserved hours, the end date included (as the request counts them)."""
        return max((self.end - self.start).days + 1, 0) * 24

    def spec(self) -> LotSpec:
        return LotSpec(
            key=f"Lot {self.number}",
            gpus=self.nodes * self.gpus_per_node,
            gpus_per_node=self.gpus_per_node,
            divisible=self.divisible,
            min_block_nodes=self.min_block_nodes or 1,
            region=self.region or None,
            number=self.number,
        )

    def clean(self) -> None:
        errors = validate_lot(self)
        if errors:
            raise ValidationError(errors)


def validate_lot(lot: Lot) -> dict[str, list[str]]:
    """Field-level messages for a lot that contradicts itself or its request."""
    errors: dict[str, list[str]] = {}
    req = lot.request
    if lot.divisible and not lot.min_block_nodes:
        errors["min_block_nodes"] = ["Give the minimum block in nodes for a divisible lot."]
    elif not lot.divisible and lot.min_block_nodes:
        errors["min_block_nodes"] = [
            "An indivisible lot goes whole to one provider: leave the minimum block empty."
        ]
    elif lot.min_block_nodes and lot.nodes and lot.min_block_nodes > lot.nodes:
        errors["min_block_nodes"] = [
            f"A block of {lot.min_block_nodes} nodes is larger than the lot's {lot.nodes} "
            f"node{pluralize(lot.nodes)}."
        ]
    if lot.region and lot.region not in req.acceptable_regions:
        errors["region"] = [
            f"{lot.get_region_display()} is not one of the request's acceptable regions."
        ]
    if lot.nodes and lot.gpus_per_node and req.gpu_count and lot.gpu_count > req.gpu_count:
        errors.setdefault("nodes", []).append(
            f"This lot has {lot.nodes} node{pluralize(lot.nodes)} × {lot.gpus_per_node} "
            f"GPU{pluralize(lot.gpus_per_node)} = {lot.gpu_count} GPUs; the whole request asks "
            f"for {req.gpu_count} GPUs."
        )
    # A lot's term is part of the request's: providers plan (and price) the request's window.
    if lot.reservation_start and lot.reservation_start < req.reservation_start:
        errors["reservation_start"] = [
            f"The lot cannot start before the request's reservation does "
            f"({req.reservation_start:%-d %b %Y})."
        ]
    if lot.reservation_end and lot.reservation_end > req.reservation_end:
        errors["reservation_end"] = [
            f"The lot cannot end after the request's reservation does "
            f"({req.reservation_end:%-d %b %Y})."
        ]
    elif lot.end <= lot.start:
        errors["reservation_end"] = ["The lot's reservation must end after it starts."]
    return errors
