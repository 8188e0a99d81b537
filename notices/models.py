"""Notices: one row per recipient and event, shown in the app and mailed by the worker.

`key` names the event's occurrence (`invitation:12:7`); it is unique per recipient, so a sender
or a task that runs twice never notifies twice. A missing `NoticePreference` row means both
channels are on.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from notices.choices import Event
from orgs.models import Organization


class Notice(models.Model):
    """Addressed by `public_id` everywhere a person sees one: the row id is a global counter,
    and its gaps would tell a reader how much happened elsewhere (while bids are sealed, too)."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notices"
    )
    # The organisation the notice is for: opening it acts for that organisation.
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="+")
    event = models.CharField(max_length=30, choices=Event.choices)
    subject = models.CharField(max_length=200)
    body = models.TextField()
    path = models.CharField(max_length=300, help_text="The object's page, from the site root.")
    key = models.CharField(max_length=160)
    # False when the recipient wants this event by e-mail only: the row still dedupes.
    in_app = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)
    emailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["recipient", "key"], name="one_notice_per_recipient")
        ]
        indexes = [
            models.Index(fields=["recipient", "in_app", "read_at"], name="notice_unread"),
        ]
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.key} → {self.recipient_id}"

    @property
    def unread(self) -> bool:
        return self.read_at is None


class NoticePreference(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notice_preferences"
    )
    event = models.CharField(max_length=30, choices=Event.choices)
    email = models.BooleanField(default=True)
    in_app = models.BooleanField(default=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "event"], name="one_preference_per_event")
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.event}"
