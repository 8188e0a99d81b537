"""The reservation's notices: a burn-in verdict asks the buyer's members to decide (once per
run and outcome), and the decision reaches the awarded provider's members. The rival, whose
bid lost, hears nothing of either."""

from __future__ import annotations

import pytest
from django.core import mail

from acceptance.services.burnin import run_request_recheck
from acceptance.services.decision import reservation_accept, reservation_reject
from notices.choices import Event
from notices.models import Notice
from tests.acceptance.burnin.helpers import GOOD_SET, upload_all

pytestmark = pytest.mark.django_db


def _to(*users):
    return sorted(u.email for u in users)


def test_a_passing_verdict_asks_the_buyer_once_then_the_decision_tells_the_provider(
    awarded,
    buyer,
    buyer_colleague,
    provider,
    rival_provider,
    settings,
    django_capture_on_commit_callbacks,
):
    settings.SITE_URL = "http://cluster.example:8443"
    upload_all(awarded.run, provider.user, GOOD_SET, django_capture_on_commit_callbacks)
    asked = [m for m in mail.outbox if "passed the gate" in m.subject]
    assert sorted(m.to[0] for m in asked) == _to(buyer.user, buyer_colleague.user)
    assert f"http://cluster.example:8443/runs/{awarded.run.pk}/" in asked[0].body
    # Another re-check with the same verdict asks nobody again.
    with django_capture_on_commit_callbacks(execute=True):
        run_request_recheck(run=awarded.run, user=provider.user)
    awarded.run.refresh_from_db()
    assert awarded.run.gate_passed is True
    assert Notice.objects.filter(event=Event.ACCEPTANCE_REQUESTED).count() == 2

    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        reservation_accept(reservation=awarded.reservation, run=awarded.run, user=buyer.user)
    assert [m.to for m in mail.outbox] == [[provider.user.email]]
    assert mail.outbox[0].subject.startswith("[Clusterbid] Helix Labs accepted the reservation")
    # The rival was invited: it hears of the invitation and the close, nothing of the reservation.
    assert not Notice.objects.filter(recipient=rival_provider.user).exclude(
        event__in=[Event.INVITATION, Event.REQUEST_CLOSED]
    )


def test_a_failing_verdict_is_its_own_notice(
    awarded, buyer, provider, django_capture_on_commit_callbacks
):
    files = [f for f in GOOD_SET if "all_reduce" not in f[0]]
    files.append(("burnin/nccl-tests/all_reduce_2node_slow.txt", ""))
    upload_all(awarded.run, provider.user, files, django_capture_on_commit_callbacks)
    notice = Notice.objects.get(recipient=buyer.user, event=Event.ACCEPTANCE_REQUESTED)
    assert "failed the gate" in notice.subject and notice.key.endswith(":fail")


def test_a_run_still_missing_evidence_asks_nobody(
    awarded, buyer, provider, django_capture_on_commit_callbacks
):
    upload_all(awarded.run, provider.user, GOOD_SET[:1], django_capture_on_commit_callbacks)
    assert awarded.run.gate_passed is False
    assert not Notice.objects.filter(event=Event.ACCEPTANCE_REQUESTED).exists()


def test_a_rejection_tells_the_provider_why(
    awarded, buyer, provider, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        reservation_reject(reservation=awarded.reservation, user=buyer.user, reason="No IB fabric.")
    notice = Notice.objects.get(recipient=provider.user, event=Event.ACCEPTANCE_DECIDED)
    assert "rejected" in notice.subject and "Reason: No IB fabric." in notice.body
    assert [m.to for m in mail.outbox] == [[provider.user.email]]
