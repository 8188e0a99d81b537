from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.template.defaultfilters import pluralize
from django.utils import timezone

from bids.choices import Fabric, GpuModel, IsolationClass, Region, RequestStatus, Scheduler
from bids.models import bounds
from bids.models.offer_kinds import offer_kind_request_errors
from core.limits import TEXT_LIMIT, year_problem
from orgs.models import Organization


def default_weights() -> dict[str, int]:
    # Mirrors engine.scoring.Weights defaults; kept literal so migrations stay stable.
    return {
        "effective_cost": 40,
        "fabric_placement": 20,
        "incident_sla": 20,
        "acceptance_terms": 10,
        "delivery_risk": 10,
    }


def default_offer_kinds() -> list[str]:
    return [IsolationClass.WHOLE_DEVICE.value]


# The request's fields by what they describe; forms, scoring inputs, the annex snapshot and the
# rules on published requests all read these lists.
ALLOCATION_FIELDS = (
    "gpu_model",
    "gpu_count",
    "nodes",
    "gpus_per_node",
    "nvlink_domain_size",
    "fabric",
    "per_gpu_bandwidth_gbps",
    "max_leaf_switches",
    "single_fabric_domain",
    "accepted_offer_kinds",
    "min_mig_profile",
    "scheduler",
    "acceptable_regions",
)
TERM_FIELDS = ("reservation_start", "reservation_end")
# The buyer's own purchasing references: never shown to a provider before the award; the contract
# annex carries them.
PURCHASING_FIELDS = ("budget_usd", "cost_centre", "po_reference")
WORKLOAD_FIELDS = (
    "checkpoint_write_seconds",
    "checkpoint_interval_minutes",
    "restart_seconds",
    "run_length_hours",
)


# Bidding rounds: every bid before a best-and-final round is round 1; the final round is 2.
FIRST_ROUND, FINAL_ROUND = 1, 2


def day_start_utc(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def term_end_utc(last_day: date) -> datetime:
    """Where a term ends: 00:00 UTC the day after its agreed last day (the end date included)."""
    return day_start_utc(last_day + timedelta(days=1))


class CapacityRequestQuerySet(models.QuerySet["CapacityRequest"]):
    def visible_to_provider(self, org: Organization) -> CapacityRequestQuerySet:
        return self.filter(invitations__provider=org).exclude(status=RequestStatus.DRAFT)

    def bids_hidden_from_buyer(self) -> CapacityRequestQuerySet:
        """`CapacityRequest.bids_hidden_from_buyer`, as a query (keep the two together)."""
        return self.filter(
            models.Q(sealed=True) | models.Q(round__gt=FIRST_ROUND),
            bids_opened_at__isnull=True,
            bid_deadline__gt=timezone.now(),
        )


class CapacityRequest(models.Model):
    buyer = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="requests")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True, max_length=TEXT_LIMIT)
    status = models.CharField(
        max_length=12, choices=RequestStatus.choices, default=RequestStatus.DRAFT, db_index=True
    )

    # Allocation
    gpu_model = models.CharField("GPU model", max_length=10, choices=GpuModel.choices)
    gpu_count = models.PositiveIntegerField("GPU count", validators=bounds.GPUS)
    nodes = models.PositiveIntegerField(validators=bounds.NODES)
    gpus_per_node = models.PositiveIntegerField("GPUs per node", validators=bounds.GPUS_PER_NODE)
    nvlink_domain_size = models.PositiveIntegerField(
        "NVLink domain size needed",
        default=8,
        validators=bounds.NVLINK_DOMAIN,
        help_text="GPUs that must share one NVLink/NVSwitch domain.",
    )
    fabric = models.CharField(
        "Backend fabric", max_length=12, choices=Fabric.choices, default=Fabric.INFINIBAND
    )
    per_gpu_bandwidth_gbps = models.PositiveIntegerField(
        "Backend bandwidth per GPU (Gb/s)", default=400, validators=bounds.LINK_GBPS
    )
    max_leaf_switches = models.PositiveIntegerField(
        "Max leaf switches",
        null=True,
        blank=True,
        help_text="Leave empty for no limit.",
        validators=bounds.SWITCHES,
    )
    single_fabric_domain = models.BooleanField("Single fabric domain", default=True)
    # Whole device, MIG, time-sliced: which offer kinds the buyer takes (docs/scoring.md).
    accepted_offer_kinds = models.JSONField("Accepted offer kinds", default=default_offer_kinds)
    min_mig_profile = models.CharField(
        "Smallest acceptable MIG profile",
        max_length=12,
        blank=True,
        help_text="When MIG offers are accepted, e.g. 3g.71gb on H200. Leave empty for any.",
    )
    scheduler = models.CharField(max_length=12, choices=Scheduler.choices, default=Scheduler.SLURM)
    acceptable_regions = models.JSONField(default=list)

    # Term and bidding
    reservation_start = models.DateField()
    reservation_end = models.DateField()
    bid_deadline = models.DateTimeField()
    sealed = models.BooleanField(
        default=True,
        help_text="Bids stay hidden from the buyer until the deadline, or until you close "
        "bidding early.",
    )
    # When a close opened the bids to the buyer (an early close opens sealed bids at once; a
    # close after the deadline records the deadline). A reopen never seals them again.
    bids_opened_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)  # the last close; a reopen clears it
    # 2 once the buyer opened the best-and-final round to a shortlist (bids/services/final_round).
    round = models.PositiveSmallIntegerField("Bidding round", default=FIRST_ROUND)

    # Purchasing (the buyer's own; approval thresholds for publishing read the budget)
    budget_usd = models.DecimalField(
        "Budget (USD)",
        max_digits=14,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
        help_text="Your organisation's approval policy compares this with its thresholds.",
    )
    cost_centre = models.CharField("Cost centre", max_length=40, blank=True)
    po_reference = models.CharField("Purchase order", max_length=40, blank=True)

    # Workload profile (cost model)
    checkpoint_write_seconds = models.PositiveIntegerField(
        "Checkpoint write (s)", default=60, validators=bounds.CHECKPOINT_WRITE_SECONDS
    )
    checkpoint_interval_minutes = models.PositiveIntegerField(
        "Checkpoint interval (min)",
        null=True,
        blank=True,
        validators=bounds.CHECKPOINT_INTERVAL_MINUTES,
        help_text="How often your job saves a checkpoint. Leave empty to score every bid at "
        "its optimum interval (Young/Daly).",
    )
    restart_seconds = models.PositiveIntegerField(
        "Restart and checkpoint load (s)", default=300, validators=bounds.RESTART_SECONDS
    )
    run_length_hours = models.PositiveIntegerField(
        "Planned run length (h)", default=1000, validators=bounds.RUN_LENGTH_HOURS
    )
    weights = models.JSONField(default=default_weights)

    invited_providers = models.ManyToManyField(
        Organization, through="Invitation", related_name="invited_requests", blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    published_at = models.DateTimeField(null=True, blank=True)

    objects = CapacityRequestQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        # A buyer's list, newest first or by deadline (what the page and the API order by),
        # reads one index range instead of sorting all the buyer's requests.
        indexes = [
            models.Index(fields=["buyer", "-created_at"], name="request_buyer_newest"),
            models.Index(fields=["buyer", "bid_deadline"], name="request_buyer_deadline"),
            models.Index(fields=["buyer", "status"], name="request_buyer_status"),
            # The next deadline of any request bounds how long a kept API read stays true.
            models.Index(fields=["bid_deadline"], name="request_deadline"),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def deadline_passed(self) -> bool:
        return self.deadline_passed_at(timezone.now())

    def deadline_passed_at(self, now: datetime) -> bool:
        """Whether the bid deadline has passed at `now` (a list reads the clock once)."""
        return now >= self.bid_deadline

    def closed_to_bids_reason(self) -> str | None:
        """Why no bid can be started, changed or submitted now; None while the request takes bids.

        The one home of this rule: bid services refuse with it, pages hide forms with it."""
        if self.status == RequestStatus.CLOSED and self.closed_at is not None:
            closed = timezone.localtime(min(self.closed_at, self.bid_deadline))
            return (
                f"Bidding closed on {closed:%-d %b %Y at %H:%M %Z}: this request no longer takes "
                "bids, and drafts can no longer be changed or submitted."
            )
        if self.status != RequestStatus.OPEN:
            return f"This request is {self.get_status_display().lower()}; it no longer takes bids."
        if self.deadline_passed:
            deadline = timezone.localtime(self.bid_deadline)
            return (
                f"The bid deadline passed on {deadline:%-d %b %Y at %H:%M %Z}; bids can no longer "
                "be submitted or changed."
            )
        return None

    def closed_to_new_bids_reason(self) -> str | None:
        """Why a provider without a bid cannot start one now: a final round is for the
        shortlisted bids alone."""
        reason = self.closed_to_bids_reason()
        if reason is None and self.in_final_round:
            return (
                "The buyer has opened a best-and-final round to shortlisted bids only; "
                "new bids are no longer taken."
            )
        return reason

    @property
    def status_label(self) -> str:
        """The status as people need it: an open request past its deadline takes no more bids."""
        if self.status == RequestStatus.OPEN and self.deadline_passed:
            return "Deadline passed"
        return str(self.get_status_display())

    @property
    def bids_opened(self) -> bool:
        """Bids are open to the buyer from the deadline or the close, whichever comes first,
        and stay open after a reopen."""
        return self.bids_opened_at is not None or self.deadline_passed

    @property
    def published_to_providers(self) -> bool:
        """From publishing on, what providers were shown (allocation, term, fixture and
        questionnaire versions) stays as they saw it, for every request alike: a rule that
        hangs on bids existing would tell a sealed request's buyer that they do."""
        return self.status != RequestStatus.DRAFT

    @property
    def in_final_round(self) -> bool:
        return self.round >= FINAL_ROUND

    @property
    def bids_hidden_from_buyer(self) -> bool:
        """Sealed requests reveal nothing about bids or bidders until the bids open; a final
        round is sealed whatever the request's flag, until its deadline or its close.

        The one home of this rule, with its query form on `CapacityRequestQuerySet`."""
        return (self.sealed or self.in_final_round) and not self.bids_opened

    @property
    def term_hours(self) -> int:
        """Reserved hours, the end date included, as scoring and the annex count them."""
        return max((self.reservation_end - self.reservation_start).days + 1, 0) * 24

    def clean(self) -> None:
        errors = validate_request_consistency(self)
        if errors:
            raise ValidationError(errors)

    def region_labels(self) -> list[str]:
        labels = dict(Region.choices)
        return [labels.get(code, code) for code in self.acceptable_regions]

    def offer_kind_labels(self) -> list[str]:
        labels = dict(IsolationClass.choices)
        return [str(labels.get(code, code)) for code in self.accepted_offer_kinds or []]


class Invitation(models.Model):
    request = models.ForeignKey(
        CapacityRequest, on_delete=models.CASCADE, related_name="invitations"
    )
    provider = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="invitations")
    invited_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["request", "provider"], name="one_invitation_per_provider"
            )
        ]

    def __str__(self) -> str:
        return f"{self.provider.name} → {self.request.title}"


def validate_request_consistency(req: CapacityRequest) -> dict[str, list[str]]:
    """Field-level messages for a request whose parts contradict each other."""
    errors: dict[str, list[str]] = {}

    def add(field: str, message: str) -> None:
        errors.setdefault(field, []).append(message)

    shape = (req.nodes or 0) * (req.gpus_per_node or 0)
    if shape and req.gpu_count and shape != req.gpu_count:
        add(
            "gpu_count",
            f"{req.nodes} node{pluralize(req.nodes)} × {req.gpus_per_node} GPU"
            f"{pluralize(req.gpus_per_node)} per node is {shape} GPUs, not {req.gpu_count}.",
        )
    if req.gpu_count and req.nvlink_domain_size and req.nvlink_domain_size > req.gpu_count:
        add(
            "nvlink_domain_size",
            f"An NVLink domain of {req.nvlink_domain_size} GPUs is larger than the "
            f"{req.gpu_count} GPUs requested.",
        )
    for name in ("reservation_start", "reservation_end"):
        day = getattr(req, name)
        if day and (problem := year_problem(day.year)):
            add(name, problem)
    if req.bid_deadline and (problem := year_problem(req.bid_deadline.year)):
        add("bid_deadline", problem)
    if (
        req.reservation_start
        and req.reservation_end
        and req.reservation_end <= req.reservation_start
    ):
        add("reservation_end", "The reservation must end after it starts.")
    if req.bid_deadline and req.reservation_start:
        deadline_date = timezone.localtime(req.bid_deadline).date()
        if deadline_date >= req.reservation_start:
            add(
                "bid_deadline",
                "The bid deadline must fall before the reservation starts "
                f"({req.reservation_start:%-d %b %Y}).",
            )
    if not req.acceptable_regions:
        add("acceptable_regions", "Choose at least one acceptable region.")
    else:
        unknown = sorted(set(req.acceptable_regions) - set(Region.values))
        if unknown:
            add("acceptable_regions", f"Unknown region code(s): {', '.join(unknown)}.")
    for field, messages in offer_kind_request_errors(req).items():
        errors.setdefault(field, []).extend(messages)
    if req.per_gpu_bandwidth_gbps is not None and req.per_gpu_bandwidth_gbps <= 0:
        add("per_gpu_bandwidth_gbps", "Give the backend bandwidth each GPU needs, above 0 Gb/s.")
    if req.max_leaf_switches == 0:
        add("max_leaf_switches", "Use at least one leaf switch, or leave empty for no limit.")
    return errors
