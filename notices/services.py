"""Notice writes: `notify` (in-app rows now, one e-mail task per notice after commit), reading,
preferences, and the e-mail itself (run by the worker)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from core.queueing import send_task
from notices.choices import Event
from notices.models import Notice, NoticePreference
from notices.selectors import channels_for
from notices.signals import notified
from orgs.models import Organization

SUBJECT_PREFIX = "[Clusterbid] "


def members(organization: Organization) -> list[User]:
    """Everyone who acts for `organization` (active accounts only), in a stable order."""
    return list(
        User.objects.filter(memberships__organization=organization, is_active=True)
        .distinct()
        .order_by("pk")
    )


def notify(
    *,
    event: Event,
    users: Iterable[User],
    organization: Organization,
    subject: str,
    body: str,
    path: str,
    key: str,
    for_organization: bool = True,
) -> list[Notice]:
    """Write one notice per user who wants `event` in some form, inside the caller's
    transaction, and queue its e-mail once that commits. A user who already has a notice with
    `key` gets nothing new, so a sender that runs twice notifies once.

    `for_organization`: the words are for `organization` as a whole, so its subscribers
    (`notified`: webhooks) receive them too, whatever its members' preferences; False where they
    are addressed to a person outside it."""
    if for_organization:
        notified.send(
            sender=Notice,
            organization=organization,
            event=event,
            subject=subject,
            body=body,
            path=path,
            key=key,
        )
    recipients = {u.pk: u for u in users if u.is_active}
    if not recipients:
        return []
    seen = set(
        Notice.objects.filter(key=key, recipient_id__in=recipients).values_list(
            "recipient_id", flat=True
        )
    )
    wanted = channels_for(user_ids=list(recipients), event=event)
    created = []
    for user_id, user in recipients.items():
        email, in_app = wanted.get(user_id, (True, True))
        if user_id in seen or not (email or in_app):
            continue
        notice = Notice(
            recipient=user,
            organization=organization,
            event=event,
            subject=subject[:200],
            body=body,
            path=path,
            key=key,
            in_app=in_app,
        )
        try:
            with transaction.atomic():
                notice.save()
        except IntegrityError:
            continue  # a concurrent run wrote it first
        created.append(notice)
        if email and user.email:
            _queue_email(notice.pk)
    return created


def notify_members(
    *, event: Event, organization: Organization, subject: str, body: str, path: str, key: str
) -> list[Notice]:
    """`notify` every member of one organisation: the notice is for that organisation only."""
    return notify(
        event=event,
        users=members(organization),
        organization=organization,
        subject=subject,
        body=body,
        path=path,
        key=key,
    )


def _queue_email(notice_id: int) -> None:
    from notices.tasks import send_notice_email

    # The notice is stored and shown in the app; only its e-mail waits while the broker is away.
    transaction.on_commit(
        lambda: send_task(
            send_notice_email, notice_id, what=f"The e-mail of notice #{notice_id}", quiet=True
        )
    )


def absolute_url(path: str) -> str:
    """A link for an e-mail: the site's public address (SITE_URL), never a guessed host."""
    return settings.SITE_URL.rstrip("/") + path


def notice_email(*, notice_id: int) -> str:
    """Mail one notice, once: a repeated or redelivered task finds `emailed_at` set."""
    with transaction.atomic():
        notice = (
            Notice.objects.select_for_update()
            .select_related("recipient", "organization")
            .filter(pk=notice_id)
            .first()
        )
        if notice is None:
            return "gone"
        if notice.emailed_at is not None:
            return "already sent"
        email, _ = channels_for(user_ids=[notice.recipient_id], event=notice.event).get(
            notice.recipient_id, (True, True)
        )
        if not email or not notice.recipient.email:
            return "not wanted"
        text = render_to_string(
            "notices/email.txt",
            {
                "notice": notice,
                "link": absolute_url(notice.path),
                "preferences": absolute_url(reverse("notices:preferences")),
            },
        ).strip()
        send_mail(
            SUBJECT_PREFIX + notice.subject,
            text,
            settings.DEFAULT_FROM_EMAIL,
            [notice.recipient.email],
        )
        notice.emailed_at = timezone.now()
        notice.save(update_fields=["emailed_at"])
    return "sent"


def notice_mark_read(*, notice: Notice) -> Notice:
    if notice.read_at is None:
        notice.read_at = timezone.now()
        notice.save(update_fields=["read_at"])
    return notice


def notice_mark_all_read(*, user: User) -> int:
    return Notice.objects.filter(recipient=user, read_at__isnull=True).update(
        read_at=timezone.now()
    )


@transaction.atomic
def preferences_update(*, user: User, choices: Mapping[str, tuple[bool, bool]]) -> None:
    """Store (e-mail, in-app) per event code; an event left out keeps its setting, and a row
    back at both-on is removed (no row means both on)."""
    for event, (email, in_app) in choices.items():
        if event not in Event.values:
            raise ValueError(f"unknown notice event {event!r}")
        if email and in_app:
            NoticePreference.objects.filter(user=user, event=event).delete()
        else:
            NoticePreference.objects.update_or_create(
                user=user, event=event, defaults={"email": email, "in_app": in_app}
            )
