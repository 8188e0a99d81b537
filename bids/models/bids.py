from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from bids.choices import (
    BidStatus,
    Coverage,
    Fabric,
    GpuModel,
    IsolationClass,
    PlacementClass,
    ReclaimEffect,
    Region,
    Scheduler,
    SiteReadiness,
    SparesLocation,
)
from bids.models import bounds
from bids.models.envelope import validate_envelope
from bids.models.offer_kinds import OfferKind, offer_kind_bid_errors, offer_kind_of
from bids.models.requests import FIRST_ROUND, CapacityRequest
from core.limits import TEXT_LIMIT
from orgs.models import Organization


class BidTerms(models.Model):
    """Everything a provider offers. The draft (`Bid`) and each frozen `BidRevision` carry it."""

    # Commercial
    price_per_gpu_hour = models.DecimalField(
        "Price per GPU-hour (USD)",
        max_digits=8,
        decimal_places=3,
        validators=[MinValueValidator(Decimal("0.001"))],
        null=True,
        blank=True,
        help_text="For a MIG or time-sliced offer, the price per slice-hour: one MIG instance "
        "or one replica for an hour.",
    )
    fees_usd = models.DecimalField(
        "Fees over the term (USD)",
        max_digits=12,
        decimal_places=2,
        default=Decimal("0"),
        validators=[MinValueValidator(Decimal("0"))],
        help_text="Set-up, support and other fees for the whole term.",
    )
    egress_usd = models.DecimalField(
        "Expected egress over the term (USD)",
        max_digits=12,
        decimal_places=2,
        default=Decimal("0"),
        validators=[MinValueValidator(Decimal("0"))],
    )
    billing_terms = models.CharField(max_length=200, blank=True)
    region = models.CharField(max_length=12, choices=Region.choices, blank=True)
    site = models.CharField("Site / data centre", max_length=120, blank=True)
    available_start = models.DateField(null=True, blank=True)
    available_end = models.DateField(
        null=True, blank=True, help_text="Leave empty when the offer covers the whole term."
    )

    # Hardware and fabric
    gpu_model = models.CharField("GPU model", max_length=10, choices=GpuModel.choices, blank=True)
    nodes = models.PositiveIntegerField(null=True, blank=True, validators=bounds.NODES)
    gpus_per_node = models.PositiveIntegerField(
        "GPUs per node", null=True, blank=True, validators=bounds.GPUS_PER_NODE
    )
    nvlink_domain_size = models.PositiveIntegerField(
        "NVLink domain size", default=8, validators=bounds.NVLINK_DOMAIN
    )
    fabric = models.CharField(
        "Backend fabric", max_length=12, choices=Fabric.choices, default=Fabric.INFINIBAND
    )
    nics_per_node = models.PositiveIntegerField(
        "Backend NICs per node", default=8, validators=bounds.NICS_PER_NODE
    )
    nic_rate_gbps = models.PositiveIntegerField(
        "NIC rate (Gb/s)", default=400, validators=bounds.LINK_GBPS
    )
    rail_optimised = models.BooleanField("Rail-optimised", default=True)
    oversubscription_ratio = models.DecimalField(
        "Oversubscription (x:1)",
        max_digits=4,
        decimal_places=2,
        default=Decimal("1.00"),
        validators=[MinValueValidator(Decimal("1"))],
        help_text="1.00 means non-blocking.",
    )
    leaf_switches = models.PositiveIntegerField(
        "Leaf switches for this allocation", null=True, blank=True, validators=bounds.SWITCHES
    )
    # The offer kind: what a buyer's job gets of each GPU, and how it is isolated from others.
    isolation_class = models.CharField(
        "Offer kind (isolation)",
        max_length=14,
        choices=IsolationClass.choices,
        default=IsolationClass.WHOLE_DEVICE,
    )
    mig_profile = models.CharField(
        "MIG profile",
        max_length=12,
        blank=True,
        help_text="MIG offers: the instance profile sold, e.g. 1g.18gb or 3g.71gb on H200.",
    )
    time_slice_replicas = models.PositiveSmallIntegerField(
        "Time-slice replicas per GPU",
        null=True,
        blank=True,
        validators=bounds.TIME_SLICE_REPLICAS,
        help_text="Time-sliced offers: the replicas each GPU is shared into, as the NVIDIA "
        "device plugin's timeSlicing replicas sets it.",
    )
    scheduler = models.CharField(max_length=12, choices=Scheduler.choices, default=Scheduler.SLURM)
    topology_aware = models.BooleanField("Topology-aware scheduling", default=False)
    gang_scheduling = models.BooleanField(default=False)
    health_checks_auto_drain = models.BooleanField("Health checks with auto-drain", default=False)

    # SLA and operations
    uptime_pct = models.DecimalField(
        "Uptime SLA (%)",
        max_digits=6,
        decimal_places=3,
        default=Decimal("99.0"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("100"))],
    )
    sla_credits = models.CharField("SLA credits", max_length=200, blank=True)
    node_replacement_hours = models.DecimalField(
        "Node replacement time (h)",
        max_digits=6,
        decimal_places=1,
        default=Decimal("24"),
        validators=[MinValueValidator(Decimal("0"))],
    )
    spares_count = models.PositiveIntegerField("Spare nodes", default=0, validators=bounds.SPARES)
    spares_location = models.CharField(
        max_length=20, choices=SparesLocation.choices, default=SparesLocation.NONE
    )
    coverage = models.CharField(
        "Support coverage", max_length=16, choices=Coverage.choices, default=Coverage.BUSINESS_HOURS
    )
    declared_node_mtbf_hours = models.PositiveIntegerField(
        "Declared node MTBF (h)",
        null=True,
        blank=True,
        validators=bounds.MTBF_HOURS,
        help_text="Leave empty if you publish none; scoring then uses a documented default.",
    )
    site_readiness = models.CharField(
        max_length=20, choices=SiteReadiness.choices, default=SiteReadiness.LIVE
    )
    notes = models.TextField(blank=True, max_length=TEXT_LIMIT)

    # On a request with lots: the offer per lot and the bundle conditions, as the plain data
    # `engine.lots` reads (see docs/lots.md). Empty on a request without lots.
    lot_offers = models.JSONField(default=list, blank=True)
    bundles = models.JSONField("Bundle conditions", default=list, blank=True)
    # The promised service envelope (seed 003). All optional: a bid made before they existed,
    # or one that promises nothing here, stays valid and shows "—" on the comparison.
    placement_class = models.CharField(
        max_length=16,
        choices=PlacementClass.choices,
        blank=True,
        help_text="Where a job of the fixture's size is placed.",
    )
    start_p50_minutes = models.PositiveIntegerField(
        "Time to running, median (min)",
        null=True,
        blank=True,
        validators=bounds.ENVELOPE_MINUTES,
        help_text="From the request to the job running, for a job of the fixture's size.",
    )
    start_p95_minutes = models.PositiveIntegerField(
        "Time to running, p95 (min)",
        null=True,
        blank=True,
        validators=bounds.ENVELOPE_MINUTES,
        help_text="19 of 20 jobs of the fixture's size run within this.",
    )
    idle_capacity_lent = models.BooleanField(
        "Idle reserved capacity lent to others",
        null=True,
        blank=True,
        help_text="Yes: while your jobs leave it idle, others may borrow it; it is reclaimed "
        "for you within the time-to-running promise.",
    )
    preemptible = models.BooleanField(
        "Running jobs can be reclaimed",
        null=True,
        blank=True,
        help_text="Yes: capacity may be taken back from your running job (burst or "
        "interruptible capacity); give the notice and what happens to the job.",
    )
    reclaim_notice_minutes = models.PositiveIntegerField(
        "Reclaim notice (min)",
        null=True,
        blank=True,
        validators=bounds.ENVELOPE_MINUTES,
        help_text="How long before capacity is taken back from a running job.",
    )
    reclaim_effect = models.CharField(
        "What a reclaim does to a running job",
        max_length=20,
        choices=ReclaimEffect.choices,
        blank=True,
    )
    health_check_minutes = models.PositiveIntegerField(
        "Health-check cadence (min)",
        null=True,
        blank=True,
        validators=bounds.HEALTH_CHECK_MINUTES,
        help_text="How often each node's health checks run while it is in service.",
    )
    node_fail_criteria = models.CharField(
        "What fails a node",
        max_length=300,
        blank=True,
        help_text="E.g. a DCGM diag failure, an XID 79, a link down, ECC over a limit.",
    )
    # Inference offers only: the latencies are promised at the stated concurrency.
    inference_concurrency = models.PositiveIntegerField(
        "Inference: stated concurrency (requests)",
        null=True,
        blank=True,
        validators=bounds.CONCURRENCY,
        help_text="Concurrent requests the latencies below hold at.",
    )
    ttft_p50_ms = models.DecimalField(
        "Inference: time to first token, median (ms)",
        max_digits=8,
        decimal_places=1,
        null=True,
        blank=True,
        validators=bounds.LATENCY_MS,
    )
    ttft_p95_ms = models.DecimalField(
        "Inference: time to first token, p95 (ms)",
        max_digits=8,
        decimal_places=1,
        null=True,
        blank=True,
        validators=bounds.LATENCY_MS,
    )
    itl_p50_ms = models.DecimalField(
        "Inference: inter-token latency, median (ms)",
        max_digits=8,
        decimal_places=1,
        null=True,
        blank=True,
        validators=bounds.LATENCY_MS,
    )
    itl_p95_ms = models.DecimalField(
        "Inference: inter-token latency, p95 (ms)",
        max_digits=8,
        decimal_places=1,
        null=True,
        blank=True,
        validators=bounds.LATENCY_MS,
    )
    throughput_tokens_per_s = models.PositiveIntegerField(
        "Inference: output throughput (tokens/s)",
        null=True,
        blank=True,
        validators=bounds.TOKENS_PER_S,
        help_text="Output tokens per second across all requests, at the stated concurrency.",
    )
    cost_per_million_tokens = models.DecimalField(
        "Inference: cost per million output tokens (USD)",
        max_digits=10,
        decimal_places=4,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0"))],
    )

    class Meta:
        abstract = True

    @classmethod
    def term_field_names(cls) -> list[str]:
        return [f.name for f in BidTerms._meta.get_fields() if f.concrete]

    def terms_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.term_field_names()}

    @property
    def gpu_count(self) -> int | None:
        if self.nodes is None or self.gpus_per_node is None:
            return None
        return self.nodes * self.gpus_per_node

    @property
    def offer_kind(self) -> OfferKind | None:
        """The kind with its share of a GPU and price per whole-device-equivalent hour; None
        while the kind lacks its specifics (a draft)."""
        return offer_kind_of(self)


class BidQuerySet(models.QuerySet["Bid"]):
    def for_provider(self, org: Organization) -> BidQuerySet:
        return self.filter(provider=org)


class Bid(BidTerms):
    """A provider's working copy. Submitting freezes its terms into a new `BidRevision`."""

    request = models.ForeignKey(CapacityRequest, on_delete=models.PROTECT, related_name="bids")
    provider = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="bids")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    status = models.CharField(
        max_length=10, choices=BidStatus.choices, default=BidStatus.DRAFT, db_index=True
    )
    latest_revision_number = models.PositiveIntegerField(default=0)
    has_unsubmitted_changes = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    # Chosen by the buyer for the best-and-final round; only shortlisted bids revise in it.
    shortlisted = models.BooleanField(default=False)

    objects = BidQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["request", "provider"], name="one_bid_per_provider")
        ]
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return f"{self.provider.name} on {self.request.title}"

    def draft_locked_reason(self) -> str | None:
        """Why the draft (terms and answers alike) can no longer change; None while it can."""
        if self.status == BidStatus.AWARDED:
            return "An awarded bid cannot be edited."
        return self.closed_to_bids_reason()

    @property
    def out_of_final_round(self) -> bool:
        """The request went to a best-and-final round without this bid."""
        return self.request.in_final_round and not self.shortlisted

    def closed_to_bids_reason(self) -> str | None:
        """Why this bid cannot be changed, submitted or withdrawn now; None while it can.

        The request's rule (`closed_to_bids_reason`) plus the final round's shortlist."""
        reason = self.request.closed_to_bids_reason()
        if reason is None and self.out_of_final_round:
            return NOT_SHORTLISTED
        return reason


NOT_SHORTLISTED = (
    "The buyer has opened a best-and-final round to a shortlist that does not include your bid: "
    "it can no longer be revised, submitted or withdrawn. Your last submitted revision stands."
)


class FrozenRevisionError(Exception):
    """A submitted revision is a record of what was offered; it never changes."""


class BidRevisionQuerySet(models.QuerySet["BidRevision"]):
    def update(self, **kwargs: Any) -> int:
        raise FrozenRevisionError("Bid revisions are immutable; submit a new revision instead.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise FrozenRevisionError("Bid revisions are immutable and cannot be deleted.")


class BidRevision(BidTerms):
    bid = models.ForeignKey(Bid, on_delete=models.PROTECT, related_name="revisions")
    number = models.PositiveIntegerField()
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    submitted_at = models.DateTimeField()
    # Room for the incident questionnaire's answers, frozen with the revision.
    questionnaire = models.JSONField(default=dict, blank=True)
    # The bidding round it was submitted in (2: the best-and-final round).
    round = models.PositiveSmallIntegerField(default=FIRST_ROUND)
    # The files it carried (`BidAttachment.frozen_row`), in upload order.
    attachments = models.JSONField(default=list, blank=True)

    objects = BidRevisionQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bid", "number"], name="unique_revision_number")
        ]
        ordering = ["bid", "-number"]

    def __str__(self) -> str:
        return f"{self.bid} — revision {self.number}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise FrozenRevisionError(f"Revision {self.number} is frozen and cannot be changed.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise FrozenRevisionError(f"Revision {self.number} is frozen and cannot be deleted.")


REQUIRED_TO_SUBMIT = {
    "price_per_gpu_hour": "Give a price per GPU-hour.",
    "region": "Choose the region the capacity sits in.",
    "available_start": "Give the date the capacity is available from.",
    "gpu_model": "Choose the GPU model you offer.",
    "nodes": "Give the number of nodes.",
    "gpus_per_node": "Give the GPUs per node.",
}


AT_LEAST_ONE = (
    "nodes",
    "gpus_per_node",
    "nvlink_domain_size",
    "leaf_switches",
    "declared_node_mtbf_hours",
)


def validate_bid_terms(
    terms: BidTerms, *, for_submit: bool, capacity_request: CapacityRequest | None = None
) -> dict[str, list[str]]:
    """Field-level problems with a bid's terms; drafts may be incomplete, submissions not.

    With `capacity_request`, also whether the request accepts the bid's offer kind."""
    errors: dict[str, list[str]] = {}

    def add(field: str, message: str) -> None:
        errors.setdefault(field, []).append(message)

    if for_submit:
        for field, message in REQUIRED_TO_SUBMIT.items():
            if getattr(terms, field) in (None, ""):
                add(field, message)
    # Counts the cost model divides by or multiplies with: zero would make the bid unscorable.
    for field in AT_LEAST_ONE:
        value = getattr(terms, field)
        if value is not None and value < 1:
            label = str(getattr(terms._meta.get_field(field), "verbose_name", field))
            add(field, f"{label[:1].upper()}{label[1:]} must be at least 1.")
    if (
        terms.available_start
        and terms.available_end
        and terms.available_end <= terms.available_start
    ):
        add("available_end", "The offer must end after it starts.")
    if terms.spares_count and terms.spares_location == SparesLocation.NONE:
        add("spares_location", "Say where the spare nodes sit.")
    if not terms.spares_count and terms.spares_location != SparesLocation.NONE:
        add("spares_count", "Give the number of spare nodes, or choose 'No spares'.")
    for field, messages in validate_envelope(terms).items():
        errors.setdefault(field, []).extend(messages)
    kinds = offer_kind_bid_errors(terms, capacity_request=capacity_request, for_submit=for_submit)
    for field, messages in kinds.items():
        errors.setdefault(field, []).extend(messages)
    return errors
