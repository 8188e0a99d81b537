"""Addenda: what the buyer publishes to every invitee of an open request, numbered per request.

An addendum is on the record once published: it is never edited or deleted (a correction is a
new addendum). Issue 20's clarification channel builds on this row (an answer that changes the
request, a deadline extension, acknowledgements before the next submit) by adding to it, not by
changing what a published addendum says.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from bids.models.clarifications import Question
from bids.models.requests import CapacityRequest
from orgs.models import Organization

TITLE_MAX = 120
TEXT_MAX = 20_000
SUMMARY_MAX = 2_000


class FrozenAddendumError(Exception):
    """A published addendum is what every invitee was told; it never changes."""


class AddendumQuerySet(models.QuerySet["Addendum"]):
    def update(self, **kwargs: Any) -> int:
        raise FrozenAddendumError("Addenda are immutable; publish a new addendum instead.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise FrozenAddendumError("Addenda are immutable and cannot be deleted.")


class Addendum(models.Model):
    request = models.ForeignKey(CapacityRequest, on_delete=models.PROTECT, related_name="addenda")
    number = models.PositiveIntegerField()
    title = models.CharField(max_length=TITLE_MAX)
    text = models.TextField(max_length=TEXT_MAX)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    published_at = models.DateTimeField()
    # The request version this addendum makes: the request as first published is version 1.
    version = models.PositiveIntegerField(default=1)
    summary = models.TextField(max_length=SUMMARY_MAX, blank=True)
    # Set only when the addendum moved the bid deadline (an extension: after > before).
    deadline_before = models.DateTimeField(null=True, blank=True)
    deadline_after = models.DateTimeField(null=True, blank=True)
    # The question it answers, published without the asker's name.
    question = models.OneToOneField(
        Question, on_delete=models.PROTECT, null=True, blank=True, related_name="addendum"
    )

    objects = AddendumQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["request", "number"], name="unique_addendum_number")
        ]
        ordering = ["request", "number"]
        verbose_name_plural = "addenda"

    def __str__(self) -> str:
        return f"Addendum {self.number} to {self.request.title}: {self.title}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise FrozenAddendumError(f"Addendum {self.number} is published and cannot change.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise FrozenAddendumError(f"Addendum {self.number} is published and cannot be deleted.")


class AddendumAcknowledgement(models.Model):
    """A provider read addendum N: its next submit waits for this row (one per provider)."""

    addendum = models.ForeignKey(
        Addendum, on_delete=models.PROTECT, related_name="acknowledgements"
    )
    provider = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="+")
    acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    acknowledged_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["addendum", "provider"], name="unique_addendum_acknowledgement"
            )
        ]

    def __str__(self) -> str:
        return f"Addendum {self.addendum_id} acknowledged by {self.provider_id}"
