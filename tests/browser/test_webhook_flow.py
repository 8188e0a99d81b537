"""A webhook delivery verified by its HMAC, with a retry after a refused delivery: the buyer's
administrator adds an endpoint in the browser and copies its secret; a bid revision on the open
request is delivered by a real Celery worker to a real receiver that refuses the first attempt
(500) and accepts the retry; the documented code verifies the signature, and the endpoint's
page shows both attempts."""

from __future__ import annotations

import pytest

from bids.services import bid_submit
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory
from tests.webhooks.receiver import documented_verify, receiving
from tests.worker_fixtures import wait_for
from webhooks.models import Delivery

pytestmark = [
    pytest.mark.browser,
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
]


def test_a_refused_delivery_is_retried_and_verified_by_its_hmac(
    live_server, new_page, login_as, buyer, provider, settings, real_worker
):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    settings.WEBHOOK_RETRY_BASE_SECONDS = 1
    req = CapacityRequestFactory(buyer=buyer.org, sealed=False)
    InvitationFactory(request=req, provider=provider.org)
    bid = BidFactory(request=req, provider=provider.org)
    with receiving(500, 200) as receiver:
        page = login_as(new_page(viewport={"width": 390, "height": 844}), "alice")
        page.goto(f"{live_server.url}/org/members/")
        page.click("#webhooks-panel a")
        page.fill("#id_url", receiver.url)
        page.check("input[name=events][value=bid_submitted]")
        page.click("#endpoint-create")
        secret = page.inner_text("#webhook-secret")
        assert secret.startswith("whsec_")
        page.click("#new-endpoint-link")

        bid_submit(bid=bid, user=provider.user)
        assert wait_for(lambda: Delivery.objects.filter(state="delivered").exists(), 60)
    first, second = receiver.received
    verify = documented_verify()
    for got in (first, second):
        assert verify(secret, got.headers["Clusterbid-Signature"], got.body)
    assert second.json()["type"] == "bid_submitted"
    assert second.json()["id"] == first.json()["id"]

    page.reload()
    log = page.inner_text("#delivery-log")
    assert "Attempt 1: refused, HTTP 500" in log
    assert "Attempt 2: delivered, HTTP 200" in log
    assert "delivered" in log
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
