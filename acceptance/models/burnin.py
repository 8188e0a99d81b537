"""After the award: the reservation, its burn-in runs, uploaded evidence, checks and the decision.

Evidence bytes are stored before anything else happens; parsing and checking run in workers and
write their state here, so the pages always show what became of every file.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from django.conf import settings
from django.db import models

from acceptance.models.fixtures import FixtureVersion
from acceptance.models.pilot import Pilot
from bids.models import Bid, BidRevision, CapacityRequest, Lot
from core.uploads import StoredUpload
from engine.evidence.checks import Spec, load_spec, summary_detail, within_allocation

WHOLE_ALLOCATION = "whole allocation"


class ReservationStatus(models.TextChoices):
    PENDING = "pending", "Pending acceptance"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"


class Reservation(models.Model):
    """The awarded bid, pinned to the revision and fixture version the gate is measured against.

    A single award is one reservation for the whole request (`lot` empty). A split award (an
    award scenario) opens one per (lot, provider): each with the nodes it won on that lot, the
    lot's term, and its own acceptance, clock and annex."""

    request = models.ForeignKey(
        CapacityRequest, on_delete=models.PROTECT, related_name="reservations"
    )
    bid = models.ForeignKey(Bid, on_delete=models.PROTECT, related_name="reservations")
    lot = models.ForeignKey(
        Lot, on_delete=models.PROTECT, null=True, blank=True, related_name="reservations"
    )
    # The nodes and price won on the lot (a split award); empty: the revision's own.
    lot_nodes = models.PositiveIntegerField(null=True, blank=True)
    lot_price_per_gpu_hour = models.DecimalField(
        max_digits=8, decimal_places=3, null=True, blank=True
    )
    bid_revision = models.ForeignKey(BidRevision, on_delete=models.PROTECT, related_name="+")
    fixture_version = models.ForeignKey(
        FixtureVersion, on_delete=models.PROTECT, related_name="reservations"
    )
    status = models.CharField(
        max_length=10,
        choices=ReservationStatus.choices,
        default=ReservationStatus.PENDING,
        db_index=True,
    )
    awarded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    awarded_at = models.DateTimeField(auto_now_add=True)
    # Why the buyer awarded against the scores (not ranked first, or disqualified); else empty.
    award_justification = models.TextField(null=True, blank=True)
    # When the term's clock starts: the later of the acceptance and the term's first day (UTC).
    clock_starts_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-awarded_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["request"],
                condition=models.Q(lot__isnull=True),
                name="one_whole_request_reservation",
            ),
            models.UniqueConstraint(fields=["bid", "lot"], name="one_reservation_per_lot_and_bid"),
        ]

    def __str__(self) -> str:
        where = f"lot {self.lot.number} of " if self.lot_id and self.lot else ""
        return f"Reservation: {self.bid.provider.name} for {where}{self.request.title}"

    @property
    def term_start(self) -> date:
        """The reserved term's first day: the lot's when the reservation is for a lot."""
        return self.lot.start if self.lot is not None else self.request.reservation_start

    @property
    def term_end(self) -> date:
        return self.lot.end if self.lot is not None else self.request.reservation_end

    @property
    def nodes(self) -> int | None:
        return self.lot_nodes if self.lot_nodes is not None else self.bid_revision.nodes

    @property
    def price_per_gpu_hour(self) -> Decimal | None:
        if self.lot_price_per_gpu_hour is not None:
            return self.lot_price_per_gpu_hour
        return self.bid_revision.price_per_gpu_hour

    @property
    def is_pending(self) -> bool:
        return self.status == ReservationStatus.PENDING

    def check_spec(self) -> Spec:
        """The fixture as its burn-in is checked: a lot's reservation is checked on the nodes
        it won (`lot_nodes` of the lot's GPUs per node), never on nodes it never had."""
        spec = load_spec(self.fixture_version.spec)
        if self.lot_nodes is None:
            return spec
        per_node = self.lot.gpus_per_node if self.lot is not None else spec.gpus_per_node
        return within_allocation(spec, nodes=self.lot_nodes, gpus_per_node=per_node)

    @property
    def clock_start(self) -> datetime | None:
        """The term's clock start once accepted (decisions stored before it was kept: `at`)."""
        if self.clock_starts_at is not None:
            return self.clock_starts_at
        decision = getattr(self, "decision", None)
        return decision.at if decision is not None and decision.is_acceptance else None


class ChecksState(models.TextChoices):
    WAITING = "waiting", "Waiting for evidence"
    RUNNING = "running", "Checking"
    DONE = "done", "Checked"
    ERROR = "error", "Check run failed"


class BurnInRun(models.Model):
    """One burn-in attempt. `evidence_version` moves whenever its evidence changes; check rows
    computed for an older version are stale and never shown as the current verdict.

    A run belongs to exactly one owner: a reservation (its burn-in, after the award), a pilot
    (before it) or a release canary (before a planned change)."""

    reservation = models.ForeignKey(
        Reservation, on_delete=models.CASCADE, null=True, blank=True, related_name="runs"
    )
    pilot = models.OneToOneField(
        Pilot, on_delete=models.CASCADE, null=True, blank=True, related_name="run"
    )
    canary = models.OneToOneField(
        "acceptance.Canary", on_delete=models.CASCADE, null=True, blank=True, related_name="run"
    )
    label = models.CharField(max_length=120)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    evidence_version = models.PositiveIntegerField(default=0)
    checked_version = models.PositiveIntegerField(null=True, blank=True)
    checks_state = models.CharField(
        max_length=10, choices=ChecksState.choices, default=ChecksState.WAITING
    )
    checks_error = models.TextField(blank=True)
    checked_at = models.DateTimeField(null=True, blank=True)
    # Set while a re-check is queued and not yet started: forty uploads queue one re-check,
    # not forty (the task clears it before it reads the evidence, so none is missed).
    recheck_queued_at = models.DateTimeField(null=True, blank=True)
    # When the latest re-check started: one whose worker was lost is failed from here.
    checks_started_at = models.DateTimeField(null=True, blank=True)
    gate_passed = models.BooleanField(null=True, blank=True)
    gate_summary = models.TextField(blank=True)

    class Meta:
        # Not through `reservation`: it is a nullable join (a pilot's run has none), which would
        # put an outer join under every row lock taken in this order.
        ordering = ["created_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(
                    reservation__isnull=False, pilot__isnull=True, canary__isnull=True
                )
                | models.Q(reservation__isnull=True, pilot__isnull=False, canary__isnull=True)
                | models.Q(reservation__isnull=True, pilot__isnull=True, canary__isnull=False),
                name="burninrun_one_owner",
            )
        ]

    def __str__(self) -> str:
        return self.label

    @property
    def gate_detail(self) -> str:
        """The gate summary after its verdict, for the page's badge to lead."""
        return summary_detail(self.gate_summary)

    @property
    def burnin_reservation(self) -> Reservation:
        """The reservation of a burn-in run. The burn-in pages and services only ever load
        runs through a reservation (their selectors filter on its parties), never a pilot's."""
        if self.reservation is None:
            owner = "a pilot's" if self.pilot_id is not None else "a canary's"
            raise Reservation.DoesNotExist(f"Run #{self.pk} is {owner} run, not a burn-in run.")
        return self.reservation

    @property
    def fixture_version(self) -> FixtureVersion:
        """The fixture version the run's evidence is checked against."""
        owner = self.reservation or self.pilot or self.canary
        assert owner is not None  # the constraint: exactly one owner is set
        return owner.fixture_version

    def check_spec(self) -> Spec:
        """What the run's evidence is checked against: its reservation's (see
        `Reservation.check_spec`), a canary's (that, cut to the nodes it ran on) or a pilot's
        fixture as written."""
        if self.canary is not None:
            return self.canary.check_spec()
        if self.reservation is not None:
            return self.reservation.check_spec()
        return load_spec(self.fixture_version.spec)

    @property
    def checks_current(self) -> bool:
        return (
            self.checks_state == ChecksState.DONE and self.checked_version == self.evidence_version
        )


class EvidenceState(models.TextChoices):
    QUEUED = "queued", "Queued"
    PARSING = "parsing", "Parsing"
    PARSED = "parsed", "Parsed"
    UNREADABLE = "unreadable", "Unreadable"
    ERROR = "error", "Processing failed"


class Evidence(StoredUpload):
    run = models.ForeignKey(BurnInRun, on_delete=models.CASCADE, related_name="evidence")
    # "" is the whole allocation; "node-a" one node; "node-a+node-b" a subset (bisection).
    node = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=30, blank=True)
    kind_given = models.BooleanField(default=False)
    state = models.CharField(
        max_length=10, choices=EvidenceState.choices, default=EvidenceState.QUEUED, db_index=True
    )
    error = models.TextField(blank=True)
    error_line = models.PositiveIntegerField(null=True, blank=True)
    parsed = models.JSONField(null=True, blank=True)
    # The parsers' format (engine.evidence.parsers.restore.FORMAT) the file was last read under: a
    # re-check rebuilds the result from `parsed` when it matches and reads the bytes again
    # otherwise, a refused file's too.
    parsed_format = models.CharField(max_length=40, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)
    state_changed_at = models.DateTimeField(auto_now=True)
    attempts = models.PositiveIntegerField(default=0)
    # Withdrawn evidence stays stored and listed, but no longer counts in the checks.
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    withdrawn_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [
            # Identical bytes from two nodes (e.g. the same `topo -m` on twin servers) are
            # two pieces of evidence; the same bytes for the same node are one.
            models.UniqueConstraint(
                fields=["run", "sha256", "node"], name="evidence_unique_per_run_node"
            )
        ]
        ordering = ["run", "uploaded_at", "pk"]

    def __str__(self) -> str:
        return f"{self.original_name} ({self.node_label})"

    def upload_dir(self) -> str:
        return f"evidence/run-{self.run_id}"

    @property
    def node_label(self) -> str:
        return self.node or WHOLE_ALLOCATION

    @property
    def ref(self) -> str:
        """How the checks name this file (and how a check row finds it again)."""
        return f"{self.original_name} #{self.pk}"

    @property
    def in_progress(self) -> bool:
        return self.state in (EvidenceState.QUEUED, EvidenceState.PARSING)


class Check(models.Model):
    """One check row of one evaluation (`version` = the run's evidence_version it reflects)."""

    run = models.ForeignKey(BurnInRun, on_delete=models.CASCADE, related_name="checks")
    version = models.PositiveIntegerField()
    position = models.PositiveIntegerField()
    name = models.CharField(max_length=200)
    group = models.CharField(max_length=40)
    status = models.CharField(max_length=14)
    measured = models.TextField(blank=True)
    expected = models.TextField(blank=True)
    evidence = models.ForeignKey(
        Evidence, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    line = models.PositiveIntegerField(null=True, blank=True)
    mandatory = models.BooleanField(default=True)
    message = models.TextField(blank=True)
    node = models.CharField(max_length=200, blank=True)
    # A row reporting a finding on the evidence (engine/evidence/checks/findings.py): its key, the
    # files it rests on (evidence ids) and their fingerprint; empty on an ordinary check.
    finding_key = models.CharField(max_length=300, blank=True)
    finding_fingerprint = models.TextField(blank=True)
    finding_evidence = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["run", "version", "position"]
        indexes = [models.Index(fields=["run", "version"], name="check_run_version")]

    def __str__(self) -> str:
        return f"{self.name}: {self.status}"


class DecisionKind(models.TextChoices):
    ACCEPTED = "accepted", "Accepted"
    OVERRIDE = "override", "Accepted by override"
    REJECTED = "rejected", "Rejected"


class Acceptance(models.Model):
    """The buyer's decision on a reservation. For an acceptance, `at` is the clock start."""

    reservation = models.OneToOneField(
        Reservation, on_delete=models.CASCADE, related_name="decision"
    )
    run = models.ForeignKey(BurnInRun, on_delete=models.PROTECT, null=True, related_name="+")
    kind = models.CharField(max_length=10, choices=DecisionKind.choices)
    reason = models.TextField(blank=True)
    gate_passed = models.BooleanField(null=True)
    gate_summary = models.TextField(blank=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    at = models.DateTimeField()
    # An override names two people: `override.requested_by` asked, `by` approved.
    override = models.OneToOneField(
        "acceptance.OverrideRequest",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="acceptance",
    )

    def __str__(self) -> str:
        return f"{self.get_kind_display()} — {self.reservation}"

    @property
    def is_acceptance(self) -> bool:
        return self.kind in (DecisionKind.ACCEPTED, DecisionKind.OVERRIDE)


class BaselineSource(models.TextChoices):
    RUN = "run", "The accepted run"
    CONTRACTED = "contracted", "The contracted thresholds"


class Baseline(models.Model):
    """What later incidents are measured against: the accepted run, frozen; or, after an
    override, the contracted thresholds (an overridden run only when the buyer chose it)."""

    reservation = models.OneToOneField(
        Reservation, on_delete=models.CASCADE, related_name="baseline"
    )
    run = models.ForeignKey(BurnInRun, on_delete=models.PROTECT, related_name="+")
    source = models.CharField(
        max_length=10, choices=BaselineSource.choices, default=BaselineSource.RUN
    )
    snapshot = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"Baseline for {self.reservation}"
