"""Notice reads: a user's own notices only, newest first."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from notices.choices import AUDIENCE, Event
from notices.models import Notice, NoticePreference


def notice_list(*, user: AbstractBaseUser) -> QuerySet[Notice]:
    return Notice.objects.filter(recipient_id=user.pk, in_app=True).select_related("organization")


def unread_count(*, user: AbstractBaseUser) -> int:
    return Notice.objects.filter(recipient_id=user.pk, in_app=True, read_at__isnull=True).count()


def notice_get(*, user: AbstractBaseUser, public_id: UUID) -> Notice:
    """The user's own notice by its public id, else 404: another user's notice does not exist
    for them, and the row id is never an address."""
    return get_object_or_404(
        Notice.objects.select_related("organization"), public_id=public_id, recipient_id=user.pk
    )


def channels_for(*, user_ids: Sequence[int], event: str) -> dict[int, tuple[bool, bool]]:
    """(e-mail, in-app) per user who changed the default for `event`; absent: both on."""
    rows = NoticePreference.objects.filter(user_id__in=user_ids, event=event)
    return {p.user_id: (p.email, p.in_app) for p in rows}


@dataclass(frozen=True)
class PreferenceRow:
    event: str
    label: str
    audience: str
    email: bool
    in_app: bool


def preference_rows(*, user: AbstractBaseUser) -> list[PreferenceRow]:
    stored = {p.event: p for p in NoticePreference.objects.filter(user_id=user.pk)}
    rows = []
    for event in Event:
        pref = stored.get(event.value)
        rows.append(
            PreferenceRow(
                event=event.value,
                label=str(event.label),
                audience=AUDIENCE[event],
                email=pref.email if pref else True,
                in_app=pref.in_app if pref else True,
            )
        )
    return rows
