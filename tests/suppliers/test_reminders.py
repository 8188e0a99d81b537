"""Reminders before a compliance document expires: one per document per threshold of
COMPLIANCE_REMINDER_DAYS, however often the sweep runs, to the provider's administrators."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from notices.models import Notice
from orgs.choices import MemberRole
from suppliers.models import ExpiryReminder
from suppliers.services import send_expiry_reminders
from tests.bids.onboarding.helpers import file_iso27001
from tests.factories import MembershipFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _thresholds(settings, tmp_path):
    settings.COMPLIANCE_REMINDER_DAYS = [30, 7]
    settings.MEDIA_ROOT = tmp_path / "media"


def test_each_threshold_reminds_once(provider):
    document = file_iso27001(provider, expires_in_days=20)
    today = timezone.localdate()
    assert send_expiry_reminders(today=today) == 1
    assert send_expiry_reminders(today=today) == 0
    assert send_expiry_reminders(today=document.expires_on - timedelta(days=5)) == 1
    assert send_expiry_reminders(today=document.expires_on - timedelta(days=4)) == 0
    notices = Notice.objects.filter(recipient=provider.user, event="compliance_expiring")
    assert sorted(n.subject for n in notices) == [
        "ISO/IEC 27001 expires in 20 days",
        "ISO/IEC 27001 expires in 5 days",
    ]


def test_a_document_first_seen_near_expiry_gets_the_nearer_reminder_only(provider):
    file_iso27001(provider, expires_in_days=3)
    assert send_expiry_reminders() == 1
    assert set(ExpiryReminder.objects.values_list("days_before", flat=True)) == {7, 30}
    assert send_expiry_reminders() == 0


def test_only_administrators_are_reminded(provider):
    engineer = MembershipFactory(organization=provider.org, role=MemberRole.ENGINEER).user
    file_iso27001(provider, expires_in_days=20)
    call_command("send_compliance_reminders")
    assert Notice.objects.filter(recipient=provider.user).exists()
    assert not Notice.objects.filter(recipient=engineer, event="compliance_expiring").exists()


def test_a_document_far_from_expiry_or_expired_is_not_reminded(provider):
    file_iso27001(provider, expires_in_days=200)
    assert send_expiry_reminders() == 0
    assert send_expiry_reminders(today=timezone.localdate() + timedelta(days=201)) == 0
