"""The real thing: a Celery worker consuming from Redis mails the notice end to end."""

from __future__ import annotations

import pytest
from django.core import mail

from bids.services import bid_submit
from notices.models import Notice
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory
from tests.worker_fixtures import wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_submitted_revision_reaches_the_buyer_through_the_worker(real_worker, buyer, provider):
    req = CapacityRequestFactory(buyer=buyer.org)
    InvitationFactory(request=req, provider=provider.org)
    bid = BidFactory(request=req, provider=provider.org)

    revision = bid_submit(bid=bid, user=provider.user)  # commits; on_commit sends to Redis

    notice = Notice.objects.get(key=f"bid-revision:{revision.pk}", recipient=buyer.user)
    assert wait_for(
        lambda: Notice.objects.filter(pk=notice.pk, emailed_at__isnull=False).exists()
    ), "the worker did not run the e-mail task"
    assert [m.to for m in mail.outbox] == [["alice@example.com"]]
    assert provider.org.name in mail.outbox[0].subject
