"""The incident: severity, frozen terms and clocks, recovery evidence, sign-offs, disputes."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models

from acceptance.models.burnin import Reservation
from contracts.models import HandoffTermsRevision
from core.uploads import StoredUpload
from engine.failures import contract_owner
from incidents.models.failed_runs import FailedRun


class Severity(models.TextChoices):
    S1 = "S1", "S1 · job down cluster-wide"
    S2 = "S2", "S2 · degraded throughput"
    S3 = "S3", "S3 · one node out, job continues"


class Signal(models.TextChoices):
    """What the incident was opened from."""

    FAILED_RUN = "failed-run", "Failed-run analysis"
    ALERT = "alert", "Provider alert"
    DRAINED_NODE = "drained-node", "Drained node"
    SLOW_JOB = "slow-job", "Slow job (buyer)"
    STEP_TIMES = "step-times", "Sustained step-time rise"
    OTHER = "other", "Other"


class Incident(models.Model):
    reservation = models.ForeignKey(Reservation, on_delete=models.CASCADE, related_name="incidents")
    failed_run = models.OneToOneField(
        FailedRun, on_delete=models.PROTECT, null=True, blank=True, related_name="incident"
    )
    severity = models.CharField(max_length=2, choices=Severity.choices)
    proposed_severity = models.CharField(max_length=2, choices=Severity.choices)
    severity_reason = models.TextField(blank=True)
    summary = models.TextField(blank=True)
    suggested_owner = models.CharField(max_length=20, blank=True)
    owner_reasons = models.JSONField(default=list, blank=True)
    window = models.JSONField(default=dict, blank=True)
    # Frozen when opened: the terms the clocks and the checklist come from.
    terms_revision = models.ForeignKey(
        HandoffTermsRevision, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    terms_source = models.CharField(max_length=120, blank=True)
    clocks = models.JSONField(default=dict)
    checklist = models.JSONField(default=list)
    degraded_pct = models.FloatField(null=True, blank=True)
    # The terms' "sustained" window for degraded throughput, frozen with the percentage.
    degraded_window_minutes = models.PositiveIntegerField(default=15)
    gpus = models.PositiveIntegerField(null=True, blank=True)
    opened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    opened_at = models.DateTimeField()
    responded_at = models.DateTimeField(null=True, blank=True)
    responded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    restored_at = models.DateTimeField(null=True, blank=True)
    restored_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Lost-time marks (UTC) beyond opening/restoring; entered by the parties.
    failed_at = models.DateTimeField(null=True, blank=True)
    last_checkpoint_at = models.DateTimeField(null=True, blank=True)
    revalidated_at = models.DateTimeField(null=True, blank=True)
    restarted_at = models.DateTimeField(null=True, blank=True)
    checkpoint = models.JSONField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Opened from any signal: who opened it (party), from what, on which nodes, over which UTC
    # window (end empty while it lasts).
    signal = models.CharField(max_length=20, choices=Signal.choices, default=Signal.FAILED_RUN)
    opened_by_party = models.CharField(max_length=10, blank=True)
    nodes = models.JSONField(default=list, blank=True)
    window_start = models.DateTimeField(null=True, blank=True)
    window_end = models.DateTimeField(null=True, blank=True)
    # S2 from step times: what the detector found (threshold, window, slowest ranks, nodes).
    degraded = models.JSONField(null=True, blank=True)
    # S3, partial capacity: GPUs per node (from the awarded bid, else the request), and the job
    # restarted on fewer nodes while the repair runs.
    gpus_per_node = models.PositiveIntegerField(null=True, blank=True)
    fewer_nodes_at = models.DateTimeField(null=True, blank=True)
    continuing_nodes = models.PositiveIntegerField(null=True, blank=True)
    # One party's word is not yet a fact: the other party acknowledges the incident, or
    # disputes it (with a reason) before the response clock runs out.
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    disputed_at = models.DateTimeField(null=True, blank=True)
    disputed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    dispute_reason = models.TextField(blank=True)

    class Meta:
        db_table = "acceptance_incident"  # the table and its rows stay put (core/model_moves.py)
        ordering = ["reservation", "-opened_at", "-pk"]

    def __str__(self) -> str:
        return f"Incident #{self.pk} ({self.severity})"

    @property
    def owner(self) -> str:
        """The suggested owner in the handoff terms' words: provider, customer or undetermined
        (older rows hold the words analyses used before: infrastructure, application)."""
        return contract_owner(self.suggested_owner)

    @property
    def is_open(self) -> bool:
        return self.closed_at is None

    def minutes(self, key: str) -> int:
        return int((self.clocks.get(self.severity) or {}).get(key) or 0)

    @property
    def response_due(self) -> object:
        return self.opened_at + timedelta(minutes=self.minutes("response_minutes"))

    @property
    def restore_due(self) -> object:
        return self.opened_at + timedelta(minutes=self.minutes("restore_minutes"))


class SeverityChangeStatus(models.TextChoices):
    PENDING = "pending", "Proposed, awaiting the other party"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"


class SeverityChange(models.Model):
    """A severity change after opening: proposed by one party with a reason, accepted or
    rejected by an approver or admin of the other. Until it is accepted the incident keeps its
    severity, so the clocks that were running keep running."""

    incident = models.ForeignKey(
        Incident, on_delete=models.CASCADE, related_name="severity_changes"
    )
    from_severity = models.CharField(max_length=2, choices=Severity.choices)
    to_severity = models.CharField(max_length=2, choices=Severity.choices)
    reason = models.TextField()
    status = models.CharField(
        max_length=10, choices=SeverityChangeStatus.choices, default=SeverityChangeStatus.PENDING
    )
    proposed_party = models.CharField(max_length=10)
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    proposed_at = models.DateTimeField()
    decided_party = models.CharField(max_length=10, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["incident", "proposed_at", "pk"]
        constraints = [
            # One proposal at a time: a second would race the first for the other's answer.
            models.UniqueConstraint(
                fields=["incident"],
                condition=models.Q(status="pending"),
                name="one_pending_severity_change",
            )
        ]

    def __str__(self) -> str:
        return f"{self.from_severity} → {self.to_severity} ({self.status})"

    @property
    def other_party(self) -> str:
        return "buyer" if self.proposed_party == "provider" else "provider"


class ClockBreach(models.Model):
    """A contract clock that ran out, kept as it happened: the clock, the severity it ran
    under, its deadline, and when it was seen. Later severity changes or edits never remove it;
    the availability and credit figures count these rows."""

    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="breaches")
    clock = models.CharField(max_length=10)  # "response" or "restore"
    severity = models.CharField(max_length=2, choices=Severity.choices)
    minutes = models.PositiveIntegerField()
    due_at = models.DateTimeField()
    recorded_at = models.DateTimeField()

    class Meta:
        ordering = ["incident", "due_at", "pk"]
        constraints = [
            # A clock breaches once; a later severity's clock of the same kind is not a second.
            models.UniqueConstraint(fields=["incident", "clock"], name="breach_once_per_clock")
        ]

    def __str__(self) -> str:
        return f"{self.severity} {self.clock} clock breached at {self.due_at:%Y-%m-%d %H:%M} UTC"


class IncidentEvidenceKind(models.TextChoices):
    NCCL = "nccl-tests", "Recovery nccl-tests run"
    SMOKE = "smoke-steps", "Smoke-run step times (CSV)"
    PRE_STEPS = "pre-steps", "Pre-incident step times (CSV)"
    DIAG = "dcgmi-diag", "Diagnostics (dcgmi diag)"
    CHECKPOINTS = "checkpoints", "Checkpoint listing"
    STEP_LOG = "step-log", "Step log (for the incident window)"
    RANK_STEPS = "rank-steps", "Per-rank step times (degraded throughput)"
    TRAINING_LOG = "training-log", "Training log with step and loss (loss continuity)"


class IncidentEvidence(StoredUpload):
    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="evidence")
    kind = models.CharField(max_length=20, choices=IncidentEvidenceKind.choices)
    ok = models.BooleanField(default=False)
    error = models.TextField(blank=True)
    parsed = models.JSONField(null=True, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = (
            "acceptance_incidentevidence"  # the table and its rows stay put (core/model_moves.py)
        )
        ordering = ["incident", "uploaded_at", "pk"]

    def __str__(self) -> str:
        return f"{self.original_name} ({self.kind})"

    def upload_dir(self) -> str:
        return f"incidents/{self.incident_id}"


class ChecklistSignoff(models.Model):
    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="signoffs")
    key = models.CharField(max_length=60)
    note = models.TextField()
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = (
            "acceptance_checklistsignoff"  # the table and its rows stay put (core/model_moves.py)
        )
        constraints = [
            models.UniqueConstraint(fields=["incident", "key"], name="signoff_once_per_item")
        ]

    def __str__(self) -> str:
        return f"{self.key} signed off by {self.by}"


class ChecklistDispute(models.Model):
    """The other party disputed a sign-off: the record stays, and the item is open again."""

    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="disputes")
    key = models.CharField(max_length=60)
    disputed_note = models.TextField()  # the sign-off as it stood
    disputed_by_party = models.CharField(max_length=10)  # who had signed: "buyer" or "provider"
    reason = models.TextField()
    party = models.CharField(max_length=10)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["incident", "at", "pk"]

    def __str__(self) -> str:
        return f"{self.key} disputed by {self.by}"
