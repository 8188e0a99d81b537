"""Sending work to the broker when it is away: the user's own upload is told (503); work that
follows from it (scoring after a submit, a notice's e-mail) waits without failing the action."""

from __future__ import annotations

import pytest

from core.errors import QueueUnavailable
from core.models import WaitingTask
from core.queueing import send_task, send_waiting
from evaluation.models import ScoringRun
from evaluation.tasks import score_request
from tests.factories import CapacityRequestFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_quiet_work_waits_and_is_sent_once_the_broker_is_back(broker_away):
    request = CapacityRequestFactory()
    send_task(score_request, request.pk, what=f"Scoring of request #{request.pk}", quiet=True)
    waiting = WaitingTask.objects.get()
    assert (waiting.task, waiting.args) == ("evaluation.tasks.score_request", [request.pk])
    with pytest.raises(QueueUnavailable, match=f"Scoring of request #{request.pk} is stored"):
        send_task(score_request, request.pk, what=f"Scoring of request #{request.pk}")
    assert send_waiting() == 0 and WaitingTask.objects.count() == 2
    broker_away()  # back: the sweep sends both (tasks run in-process here), oldest first
    assert send_waiting() == 2 and not WaitingTask.objects.exists()
    assert ScoringRun.objects.filter(request=request).exists()
