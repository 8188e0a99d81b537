"""Stored scoring results: one `ScoringRun` per request and set of inputs, one `BidScore` per bid.

A run is identified by the fingerprint of its inputs (the request's workload profile, the bid
revisions scored and the weights), so scoring the same inputs twice finds the same run.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from bids.models.bids import Bid, BidRevision
from bids.models.requests import CapacityRequest
from engine.scoring import CRITERIA


class ScoringStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Scoring"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class ScoringRun(models.Model):
    request = models.ForeignKey(
        CapacityRequest, on_delete=models.CASCADE, related_name="scoring_runs"
    )
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the scoring inputs.")
    weights = models.JSONField()
    weights_hash = models.CharField(max_length=64)
    status = models.CharField(
        max_length=10, choices=ScoringStatus.choices, default=ScoringStatus.QUEUED
    )
    # A newer revision, a withdrawal or a weight change supersedes the run's numbers.
    stale = models.BooleanField(default=False, db_index=True)
    error = models.TextField(blank=True)
    bid_count = models.PositiveIntegerField(default=0)
    attempts = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    # When it was last sent to the queue (a change of inputs or a retry sends it again).
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    winner_label = models.CharField(max_length=40, blank=True)
    sensitivity = models.JSONField(default=dict, blank=True)
    # The whole `result_to_dict(...)`; large, so pages read `BidScore` rows and defer this.
    result = models.JSONField(null=True, blank=True)

    class Meta:
        db_table = "bids_scoringrun"  # the table and its rows stay put (core/model_moves.py)
        constraints = [
            models.UniqueConstraint(
                fields=["request", "fingerprint"], name="one_scoring_run_per_input"
            )
        ]
        ordering = ["-pk"]

    def __str__(self) -> str:
        return f"Scoring of {self.request_id} ({self.get_status_display()})"

    @property
    def weights_in_order(self) -> list[float]:
        """The weights in criterion order (a JSON column need not keep key order: jsonb sorts)."""
        return [float(self.weights.get(name, 0)) for name in CRITERIA]

    @property
    def in_progress(self) -> bool:
        return self.status in (ScoringStatus.QUEUED, ScoringStatus.RUNNING)

    @property
    def duration_seconds(self) -> float | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()


class BidScore(models.Model):
    """One bid revision scored under one weight set (the run's)."""

    run = models.ForeignKey(ScoringRun, on_delete=models.CASCADE, related_name="scores")
    revision = models.ForeignKey(BidRevision, on_delete=models.PROTECT, related_name="scores")
    label = models.CharField(max_length=40, help_text="The bid's key inside the scoring result.")
    weights = models.JSONField()
    weights_hash = models.CharField(max_length=64, db_index=True)
    fingerprint = models.CharField(max_length=64)
    qualified = models.BooleanField()
    rank = models.PositiveIntegerField(null=True, blank=True)
    position = models.PositiveIntegerField(help_text="Order in the result: ranked, then the rest.")
    total = models.FloatField()
    criteria = models.JSONField(help_text="[{name, score, rationale}] in criterion order.")
    disqualifications = models.JSONField(default=list, blank=True)
    cost = models.JSONField(help_text="The cost breakdown, with its `explain` rows.")
    curve = models.JSONField(default=dict, blank=True)
    win_share = models.FloatField(null=True, blank=True)

    class Meta:
        db_table = "bids_bidscore"  # the table and its rows stay put (core/model_moves.py)
        constraints = [
            models.UniqueConstraint(fields=["run", "revision"], name="one_score_per_run_revision")
        ]
        ordering = ["run", "position"]

    def __str__(self) -> str:
        return f"{self.label}: {self.total:.2f}"

    @property
    def effective_price(self) -> Any:
        return self.cost.get("effective_price_per_useful_gpu_hour")


class ComparisonPresentation(models.Model):
    """A finished run's comparison as the buyer's side shows it, in one labelling: built once,
    read back while its fingerprint (everything it read besides the run: provider names,
    acknowledgements, agreed terms, anonymous labels, the presentation's version) still holds,
    built again and stored over when it does not."""

    run = models.ForeignKey(ScoringRun, on_delete=models.CASCADE, related_name="presentations")
    anonymised = models.BooleanField()
    fingerprint = models.CharField(max_length=64)
    # `evaluation.matrix` shapes: columns, the matrix's groups, sensitivity and charts.
    columns = models.JSONField()
    groups = models.JSONField()
    summary = models.JSONField()
    # The page's matrix body, printed from `groups` (escaped): the page reads this, not them.
    matrix_html = models.TextField()
    # The same groups printed as the API's JSON (`matrix.groups_printed`): the API writes this
    # text into its answer as it is, not parsed and printed again on every read.
    groups_json = models.TextField(default="")
    built_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["run", "anonymised"], name="one_presentation_per_run_labelling"
            )
        ]

    def __str__(self) -> str:
        return f"Comparison of run {self.run_id} ({'anonymous' if self.anonymised else 'named'})"


class EvaluatorView(models.Model):
    """One buyer member's own weights for a request (team evaluation): the scored criteria and
    the two judged ones (`evaluation.team.recombine.VIEW_WEIGHTS`)."""

    request = models.ForeignKey(
        CapacityRequest, on_delete=models.CASCADE, related_name="evaluator_views"
    )
    evaluator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    weights = models.JSONField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["request", "evaluator"], name="one_evaluator_view_per_member"
            )
        ]
        ordering = ["pk"]

    def __str__(self) -> str:
        return f"{self.evaluator} on request {self.request_id}"


class JudgedCriterion(models.TextChoices):
    ACCEPTANCE_TERMS = "judged_acceptance_terms", "Acceptance terms (judged)"
    DELIVERY_RISK = "judged_delivery_risk", "Delivery risk (judged)"


class Judgement(models.Model):
    """An evaluator's rating (1-5) of one bid on one judged criterion, with a comment."""

    view = models.ForeignKey(EvaluatorView, on_delete=models.CASCADE, related_name="judgements")
    bid = models.ForeignKey(Bid, on_delete=models.CASCADE, related_name="+")
    criterion = models.CharField(max_length=32, choices=JudgedCriterion.choices)
    score = models.PositiveSmallIntegerField()
    comment = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["view", "bid", "criterion"], name="one_judgement_per_bid_criterion"
            )
        ]
        ordering = ["pk"]

    def __str__(self) -> str:
        return f"{self.criterion} {self.score} for bid {self.bid_id}"


class AwardView(models.TextChoices):
    """Which ranking the award followed."""

    REQUEST = "request", "The request's weights"
    CONSENSUS = "consensus", "The team's consensus"
    EVALUATOR = "evaluator", "One evaluator's view"


class AwardBasis(models.Model):
    """The ranking an award followed, and whether the awarded bid was first in it (buyer only:
    it names evaluators)."""

    request = models.OneToOneField(
        CapacityRequest, on_delete=models.CASCADE, related_name="award_basis"
    )
    view = models.CharField(max_length=10, choices=AwardView.choices)
    evaluator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    label = models.CharField(max_length=200, help_text="The view in words, as recorded.")
    first_in_view = models.CharField(max_length=200, blank=True)
    followed = models.BooleanField(help_text="The awarded bid was first in the view.")
    recorded_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"Award of {self.request_id} followed {self.label}"


class BidDebrief(models.Model):
    """What the bidder was told of its own bid at the award, kept for its bid page: the notice
    goes to the members of the day, the page to whoever reads the bid later."""

    bid = models.OneToOneField(Bid, on_delete=models.CASCADE, related_name="debrief")
    won = models.BooleanField()
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"Debrief of bid {self.bid_id}"


from evaluation.scenario_models import (  # noqa: E402  (registered with the app's models)
    AwardScenario,
    ScenarioAward,
    ScenarioObjective,
    ScenarioStatus,
    ShareBasis,
)

__all__ = [
    "AwardBasis",
    "AwardScenario",
    "AwardView",
    "BidDebrief",
    "BidScore",
    "ComparisonPresentation",
    "EvaluatorView",
    "JudgedCriterion",
    "Judgement",
    "ScenarioAward",
    "ScenarioObjective",
    "ScenarioStatus",
    "ScoringRun",
    "ScoringStatus",
    "ShareBasis",
]
