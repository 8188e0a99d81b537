"""Issue 16's walk, in a real browser, as named roles: a sealed request closed early opens its
bids at once; the buyer awards the second-ranked bid with a written justification (refused
without one); the losing provider reads a debrief of its own bid, and nobody else's price."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from acceptance.models import Reservation
from acceptance.services.fixtures import fixture_from_template
from audit.models import AuditEntry
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from evaluation.selectors import award_rows

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

JUSTIFICATION = "The second bid's site is the only one with spare nodes on hand for the whole term."


def test_sealed_close_then_justified_award_of_the_second_then_the_losers_debrief(
    live_server, new_page, login_as, world, buyer, provider, rival_provider
):
    req = world.request
    fixture_from_template(capacity_request=req, user=buyer.user, template=DEFAULT_TEMPLATE)
    req.sealed = True
    req.bid_deadline = timezone.now() + timedelta(days=17)
    req.save()
    url = f"{live_server.url}/requests/{req.pk}/"

    alice = login_as(new_page(), "alice")
    alice.goto(url)
    assert alice.locator("#bids tbody tr").count() == 0  # sealed: nothing to see yet
    alice.click("#close-link")
    alice.click("#confirm-move")
    alice.wait_for_selector("text=Bidding closed.")
    assert alice.locator("#bids tbody tr").count() == 2  # open at once

    req.refresh_from_db()
    first, second = award_rows(capacity_request=req)[:2]
    assert first.rank == 1 and second.rank == 2
    alice.on("dialog", lambda dialog: dialog.accept())
    # A justification that is not a sentence is refused by the server, with the reason.
    box = f"#justification-{second.bid.pk}"
    alice.evaluate(f"document.querySelector('{box}').removeAttribute('minlength')")
    alice.fill(box, "cheaper")
    alice.click(f"#award-panel form[action$='/bids/{second.bid.pk}/award/'] button")
    alice.wait_for_selector("text=at least one full sentence")
    assert not Reservation.objects.filter(request=req).exists()

    alice.fill(box, JUSTIFICATION)
    alice.click(f"#award-panel form[action$='/bids/{second.bid.pk}/award/'] button")
    alice.wait_for_selector(f"text=Awarded to {second.bid.provider.name}")
    reservation = Reservation.objects.get(request=req)
    assert reservation.bid_id == second.bid.pk
    assert reservation.award_justification == JUSTIFICATION
    assert AuditEntry.objects.get(action="reservation.open").reason == JUSTIFICATION

    # The loser (ranked first) reads its debrief in the product and by e-mail.
    loser = provider if first.bid.provider_id == provider.org.pk else rival_provider
    page = login_as(new_page(), loser.user.get_username())
    page.goto(f"{live_server.url}/notices/")
    notice = page.locator(".notice", has_text="was awarded to another bid")
    text = notice.inner_text()
    assert "Your bid ranked 1 of 2" in text and "weight" in text
    (debrief,) = [
        m for m in mail.outbox if m.to == [loser.user.email] and "another bid" in m.subject
    ]
    winner_price = str(second.revision.price_per_gpu_hour)
    assert second.bid.provider.name not in debrief.body and winner_price not in debrief.body
    assert "Your bid ranked 1 of 2" in debrief.body
