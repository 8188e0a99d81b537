"""An incident's notices reach both parties' members, and nobody else: opened, a clock at 75 %
of its target, a clock breached (each once, from the periodic sweep), closed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail

from incidents import services
from incidents.notices import clocks_sweep
from incidents.tasks import send_due_notices
from notices.choices import Event
from notices.models import Notice
from tests.incidents.test_incident_services import OPENED, _ready_to_close

pytestmark = pytest.mark.django_db


@pytest.fixture
def incident(analysed, buyer, buyer_colleague, provider, rival_provider):
    return services.incident_open(failed_run=analysed, user=buyer.user, now=OPENED)


def _keys(event: str) -> list[str]:
    return sorted(set(Notice.objects.filter(event=event).values_list("key", flat=True)))


def _recipients(key_end: str) -> set[str]:
    return set(
        Notice.objects.filter(key__endswith=key_end).values_list("recipient__username", flat=True)
    )


def test_opening_tells_both_parties_and_not_the_rival(
    analysed, buyer, buyer_colleague, provider, rival_provider, settings,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    settings.SITE_URL = "https://ops.example.org/clusterbid"
    with django_capture_on_commit_callbacks(execute=True):
        incident = services.incident_open(failed_run=analysed, user=buyer.user, now=OPENED)
    opened = [m for m in mail.outbox if "opened" in m.subject]
    assert sorted(m.to[0] for m in opened) == sorted(
        u.email for u in (buyer.user, buyer_colleague.user, provider.user)
    )
    assert f"https://ops.example.org/clusterbid/incidents/{incident.pk}/" in opened[0].body
    assert "First response due" in opened[0].body
    assert not Notice.objects.filter(recipient=rival_provider.user, event=Event.INCIDENT_OPENED)
    orgs = set(
        Notice.objects.filter(event=Event.INCIDENT_OPENED).values_list("organization", flat=True)
    )
    assert orgs == {buyer.org.pk, provider.org.pk}


def test_each_clock_warns_at_75_percent_then_breaches_once(incident, provider):
    # S1: respond within 15 minutes, restore within 240.
    assert clocks_sweep(now=OPENED + timedelta(minutes=11)) == 0
    assert clocks_sweep(now=OPENED + timedelta(minutes=12)) == 3  # alice, bob, nora
    assert _keys(Event.CLOCK_WARNING) == [f"incident-clock:{incident.pk}:response:75"]
    assert _recipients("response:75") == {"alice", "bob", "nora"}
    assert clocks_sweep(now=OPENED + timedelta(minutes=13)) == 0
    assert clocks_sweep(now=OPENED + timedelta(minutes=16)) == 3
    assert _keys(Event.CLOCK_BREACHED) == [f"incident-clock:{incident.pk}:response:breach"]
    # The restore clock warns at 180 minutes; a recorded restore stops it before its breach.
    assert clocks_sweep(now=OPENED + timedelta(minutes=181)) == 3
    services.incident_mark(
        incident=incident, user=provider.user, what="restored", now=OPENED + timedelta(minutes=200)
    )
    assert clocks_sweep(now=OPENED + timedelta(minutes=300)) == 0
    notice = Notice.objects.get(recipient=provider.user, key__endswith="restore:75")
    assert "75 % of the restore clock" in notice.body and "240 minutes" in notice.body


def test_a_clock_found_already_breached_sends_the_breach_only(incident):
    assert clocks_sweep(now=OPENED + timedelta(hours=5)) == 6  # two clocks × three people
    assert _keys(Event.CLOCK_WARNING) == []
    assert len(_keys(Event.CLOCK_BREACHED)) == 2


def test_a_closed_incident_is_not_swept_and_its_closure_is_told_to_both(
    incident, buyer, provider, rival_provider, django_capture_on_commit_callbacks
):
    _ready_to_close(incident, buyer, provider)
    with django_capture_on_commit_callbacks(execute=True):
        services.incident_close(incident=incident, user=buyer.user, confirmed=True)
    closed = [m for m in mail.outbox if m.subject.endswith("closed")]
    assert sorted(m.to[0] for m in closed) == sorted(
        ["alice@example.com", "bob@example.com", "nora@example.com"]
    )
    assert "closed by alice" in closed[0].body
    assert clocks_sweep(now=OPENED + timedelta(days=3)) == 0
    # The rival was invited: it hears of the invitation and the close, nothing of the reservation.
    assert not Notice.objects.filter(recipient=rival_provider.user).exclude(
        event__in=[Event.INVITATION, Event.REQUEST_CLOSED]
    )


def test_the_periodic_task_sweeps(incident):
    # Opened in 2025: both clocks are long breached by now.
    assert send_due_notices() == {"breaches": 2, "incident_clocks": 6, "bids_opened": 0}
    assert send_due_notices() == {"breaches": 0, "incident_clocks": 0, "bids_opened": 0}
