"""Questions an invited provider asks about an open request, and the buyer's answers.

The asking provider is on the row for the buyer and the asker alone: what other invitees read
of a published question is built without it (see `bids.clarification_selectors`).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from bids.models.requests import CapacityRequest
from orgs.models import Organization

QUESTION_MAX = 4_000
ANSWER_MAX = 20_000


class QuestionState(models.TextChoices):
    OPEN = "open", "Open"
    PRIVATE = "private", "Answered privately"
    PUBLISHED = "published", "Published to every invitee"


class Question(models.Model):
    """Numbered three ways, so that no number tells an invitee that others asked: `number`
    orders every question for the buyer; `own_number` counts the asker's own (what it reads);
    `published_number` counts the published ones (what every invitee reads)."""

    request = models.ForeignKey(CapacityRequest, on_delete=models.PROTECT, related_name="questions")
    number = models.PositiveIntegerField()
    own_number = models.PositiveIntegerField(default=0)
    published_number = models.PositiveIntegerField(null=True, blank=True)
    provider = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="+")
    asked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    asked_at = models.DateTimeField()
    text = models.TextField(max_length=QUESTION_MAX)
    # The wording every invitee reads once published: the buyer may edit or redact the asker's
    # text first (a price, a name); the asker reads both.
    published_text = models.TextField(max_length=QUESTION_MAX, blank=True)
    state = models.CharField(max_length=10, choices=QuestionState.choices, default="open")
    answer = models.TextField(max_length=ANSWER_MAX, blank=True)
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["request", "number"], name="unique_question_number"),
            models.UniqueConstraint(
                fields=["request", "published_number"], name="unique_published_question_number"
            ),
        ]
        ordering = ["request", "number"]

    def __str__(self) -> str:
        return f"Question {self.number} on {self.request_id}"
