"""A reading whose task was lost or whose worker died is failed visibly, then retried."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from inference.jobs import served_parses_reap
from inference.models import ServedResponsesFile, ServedState
from inference.services import served_upload
from tests.inference.helpers import upload

pytestmark = pytest.mark.django_db


def test_a_reading_never_picked_up_is_failed_with_a_retry(served, provider):
    row, _ = served_upload(reservation=served, user=provider.user, upload=upload("request_log.csv"))
    assert row.state == ServedState.QUEUED
    assert served_parses_reap(timezone.now()) == 0
    ServedResponsesFile.objects.filter(pk=row.pk).update(
        queued_at=timezone.now() - timedelta(days=1)
    )
    assert served_parses_reap(timezone.now()) == 1
    row.refresh_from_db()
    assert row.state == ServedState.ERROR and "Retry it" in row.error
