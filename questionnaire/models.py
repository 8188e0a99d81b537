from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from bids.models import Bid, CapacityRequest
from questionnaire.answer_types import ANSWER_TYPES, QuestionSpec

RULE_CHOICES = [
    ("", "Not a deal-breaker"),
    ("yes", "Must be yes"),
    ("max", "At most"),
    ("min", "At least"),
    ("one_of", "Must be one of"),
]


class QuestionSet(models.Model):
    """A versioned list of questions. Library sets have no request; a request owns its copies."""

    request = models.ForeignKey(
        CapacityRequest,
        on_delete=models.CASCADE,
        related_name="question_sets",
        null=True,
        blank=True,
    )
    name = models.CharField(max_length=120)
    version = models.PositiveIntegerField()
    based_on = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Buyer-entered target clocks per severity, in minutes: {"S1": 30, ...}.
    target_response_minutes = models.JSONField(default=dict, blank=True)
    target_restore_minutes = models.JSONField(default=dict, blank=True)
    required_transport = models.CharField(
        "NCCL transport the fixture requires",
        max_length=20,
        blank=True,
        help_text="Used when the request has no acceptance fixture naming one.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["request", "version"],
                condition=Q(request__isnull=False),
                name="one_version_number_per_request",
            ),
            models.UniqueConstraint(
                fields=["name", "version"],
                condition=Q(request__isnull=True),
                name="one_library_version_per_name",
            ),
        ]
        ordering = ["request_id", "-version"]

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"


class Question(models.Model):
    question_set = models.ForeignKey(
        QuestionSet, on_delete=models.CASCADE, related_name="questions"
    )
    key = models.CharField(max_length=80)
    section = models.CharField(max_length=80)
    text = models.CharField(max_length=300)
    help_text = models.CharField(max_length=300, blank=True)
    answer_type = models.CharField(max_length=10, choices=list(ANSWER_TYPES.items()))
    choices = models.JSONField(default=list, blank=True)
    required = models.BooleanField(default=False)
    rule = models.CharField("Deal-breaker", max_length=10, choices=RULE_CHOICES, blank=True)
    rule_value = models.CharField(max_length=200, blank=True)
    # Placement in the responsibility matrix (blank for operations questions).
    step = models.CharField(max_length=30, blank=True)
    column = models.CharField(max_length=30, blank=True)
    order = models.PositiveIntegerField(default=0)
    # The bid field that holds this answer (questionnaire.facts.BINDINGS); blank: answered here.
    bound_to = models.CharField(max_length=40, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["question_set", "key"], name="unique_question_key")
        ]
        ordering = ["question_set", "order", "pk"]

    def __str__(self) -> str:
        return self.key

    def to_spec(self) -> QuestionSpec:
        return QuestionSpec(
            key=self.key,
            section=self.section,
            text=self.text,
            answer_type=self.answer_type,
            choices=tuple((str(v), str(label)) for v, label in self.choices),
            required=self.required,
            rule=self.rule,
            rule_value=self.rule_value,
            help_text=self.help_text,
            step=self.step,
            column=self.column,
            order=self.order,
            bound_to=self.bound_to,
        )


class BidQuestionnaire(models.Model):
    """The provider's working answers for one bid (canonical values keyed by question key)."""

    bid = models.OneToOneField(Bid, on_delete=models.CASCADE, related_name="questionnaire_answers")
    question_set = models.ForeignKey(QuestionSet, on_delete=models.PROTECT, related_name="+")
    answers = models.JSONField(default=dict, blank=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Answers for {self.bid}"


class KeptConflicts(models.Model):
    """The conflicts a provider chose to keep as stated, with why. A submit goes through only
    when every current conflict is among `messages`: a new or changed one blocks it again."""

    bid = models.OneToOneField(Bid, on_delete=models.CASCADE, related_name="kept_conflicts")
    messages = models.JSONField(default=list)
    reason = models.TextField(max_length=2000)
    kept_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    kept_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Conflicts kept on {self.bid}"
