"""`notify`: rows in the caller's transaction, one e-mail per notice after commit, the user's
preferences, the SITE_URL link, and never twice for one key."""

from __future__ import annotations

import pytest
from django.core import mail
from django.db import transaction

from notices.choices import Event
from notices.models import Notice, NoticePreference
from notices.services import (
    notice_mark_all_read,
    notice_mark_read,
    notify,
    notify_members,
    preferences_update,
)
from notices.tasks import send_notice_email
from tests.factories import MembershipFactory

pytestmark = pytest.mark.django_db


def _send(org, key="test:1", **overrides):
    values = {
        "event": Event.INVITATION,
        "organization": org,
        "subject": "Invitation to bid",
        "body": "You are invited.",
        "path": "/requests/7/",
        "key": key,
    }
    return notify_members(**(values | overrides))


def test_each_member_gets_a_notice_and_one_mail_linking_to_site_url(
    buyer, buyer_colleague, settings, django_capture_on_commit_callbacks
):
    settings.SITE_URL = "https://bids.example.com"
    with django_capture_on_commit_callbacks(execute=True):
        sent = _send(buyer.org)
    assert {n.recipient for n in sent} == {buyer.user, buyer_colleague.user}
    assert sorted(m.to[0] for m in mail.outbox) == ["alice@example.com", "bob@example.com"]
    message = mail.outbox[0]
    assert message.subject == "[Clusterbid] Invitation to bid"
    assert "https://bids.example.com/requests/7/" in message.body
    assert "https://bids.example.com/notices/preferences/" in message.body
    assert ":8000" not in message.body
    assert all(n.emailed_at is not None for n in Notice.objects.all())


def test_the_mail_waits_for_the_commit_and_never_goes_for_a_rolled_back_move(
    buyer, django_capture_on_commit_callbacks
):
    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        _send(buyer.org)
        raise RuntimeError("the move failed")
    assert mail.outbox == [] and not Notice.objects.exists()


def test_the_same_key_never_notifies_twice(buyer, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        assert len(_send(buyer.org)) == 1
        assert _send(buyer.org) == []
    assert len(mail.outbox) == 1 and Notice.objects.count() == 1


def test_the_email_task_run_twice_mails_once(buyer, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        (notice,) = _send(buyer.org)
    assert send_notice_email(notice.pk) == "already sent"
    assert send_notice_email(10**9) == "gone"
    assert len(mail.outbox) == 1


def test_preferences_choose_the_channels(
    buyer, buyer_colleague, django_capture_on_commit_callbacks
):
    preferences_update(user=buyer.user, choices={Event.INVITATION: (False, True)})
    preferences_update(user=buyer_colleague.user, choices={Event.INVITATION: (False, False)})
    with django_capture_on_commit_callbacks(execute=True):
        sent = _send(buyer.org)
    # Alice: in the app only; Bob: not at all.
    assert [n.recipient for n in sent] == [buyer.user]
    assert mail.outbox == []
    # Another event keeps the default (both channels).
    with django_capture_on_commit_callbacks(execute=True):
        _send(buyer.org, key="test:2", event=Event.AWARD)
    assert len(mail.outbox) == 2


def test_email_only_keeps_the_row_out_of_the_list(buyer, django_capture_on_commit_callbacks):
    preferences_update(user=buyer.user, choices={Event.INVITATION: (True, False)})
    with django_capture_on_commit_callbacks(execute=True):
        (notice,) = _send(buyer.org)
    assert notice.in_app is False and len(mail.outbox) == 1


def test_turning_mail_off_after_queueing_stops_the_mail(buyer, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        (notice,) = _send(buyer.org)
    preferences_update(user=buyer.user, choices={Event.INVITATION: (False, True)})
    for callback in callbacks:
        callback()
    assert mail.outbox == []
    assert send_notice_email(notice.pk) == "not wanted"


def test_back_to_both_on_removes_the_row(buyer):
    preferences_update(user=buyer.user, choices={Event.LOSS: (False, True)})
    preferences_update(user=buyer.user, choices={Event.LOSS: (True, True)})
    assert not NoticePreference.objects.exists()
    with pytest.raises(ValueError):
        preferences_update(user=buyer.user, choices={"nonsense": (True, True)})


def test_a_member_without_email_still_gets_the_in_app_notice(
    buyer_org, django_capture_on_commit_callbacks
):
    member = MembershipFactory(organization=buyer_org, user__email="").user
    with django_capture_on_commit_callbacks(execute=True):
        sent = notify(
            event=Event.AWARD,
            users=[member],
            organization=buyer_org,
            subject="s",
            body="b",
            path="/",
            key="k",
        )
    assert len(sent) == 1 and mail.outbox == []


def test_an_inactive_account_is_not_notified(buyer):
    buyer.user.is_active = False
    buyer.user.save()
    assert _send(buyer.org) == []


def test_marking_read(buyer, buyer_colleague):
    mine = _send(buyer.org)
    other = _send(buyer.org, key="test:2")
    notice = next(n for n in mine if n.recipient == buyer.user)
    notice_mark_read(notice=notice)
    first = notice.read_at
    notice_mark_read(notice=notice)
    assert notice.read_at == first  # the first reading stays
    assert notice_mark_all_read(user=buyer.user) == 1  # only alice's unread one
    assert Notice.objects.filter(recipient=buyer_colleague.user, read_at__isnull=True).count() == 2
    assert other
