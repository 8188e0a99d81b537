"""Clarifications in a real browser: a question published without its asker's name, seen by a
rival; an addendum that extends the deadline and blocks a submit until acknowledged."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bids.models import AddendumAcknowledgement, Question

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ASKED = "Are the spare nodes in the same pod as ours?"


def test_a_question_published_anonymised_reaches_a_rival(
    live_server, new_page, login_as, world, provider, rival_provider
):
    url = f"{live_server.url}/requests/{world.request.pk}/"

    nora = login_as(new_page(), "nora")
    nora.goto(url)
    nora.click("#question-submit")  # empty: named on the field
    assert "Write your question" in nora.inner_text("#id_text_error")
    nora.fill("#id_text", ASKED)
    nora.click("#question-submit")
    nora.wait_for_selector("text=Question 1 sent.")
    assert "Open" in nora.inner_text("#question-1")

    alice = login_as(new_page(), "alice")
    alice.goto(url)
    assert "Northwind" in alice.inner_text("#question-1")  # the buyer sees who asked
    alice.fill("#id_q1-answer", "Yes: two spares, same pod, same leaf pair.")
    alice.check("input[name='q1-visibility'][value='publish']")
    alice.click("#answer-submit-1")
    alice.wait_for_selector("text=published to every invitee")

    rita = login_as(new_page(), "rita")
    rita.goto(url)
    question = rita.inner_text("#question-p1")  # the published count: no asker, no gaps
    assert ASKED in question and "two spares, same pod" in question
    assert "Published to every invitee" in question
    body = rita.inner_text("body")
    assert "Northwind" not in body and "nora" not in body
    assert "Northwind" not in rita.content()

    nora.goto(url)
    assert "Published to every invitee" in nora.inner_text("#question-1")
    assert Question.objects.get().state == "published"


def test_an_addendum_blocks_the_submit_until_acknowledged(
    live_server, new_page, login_as, world, provider
):
    req = world.request
    url = f"{live_server.url}/requests/{req.pk}/"
    later = timezone.localtime(req.bid_deadline + timedelta(days=2)).replace(second=0)

    alice = login_as(new_page(), "alice")
    alice.goto(url)
    alice.fill("#id_title", "Deadline extended")
    alice.fill("#id_text", "The site survey slipped; bids are due two days later.")
    alice.fill("#id_bid_deadline", later.strftime("%Y-%m-%dT%H:%M"))
    alice.fill("#id_summary", "Bid deadline two days later.")
    alice.check("#id_confirm")
    alice.click("#addendum-submit")
    alice.wait_for_selector("text=Addendum 1 published")
    changes = alice.inner_text("#addendum-1-changes")
    assert "Bid deadline" in changes and "→" in changes and later.strftime("%-d %b %Y") in changes
    assert "Request version 2" in alice.inner_text("#addendum-1")

    nora = login_as(new_page(), "nora")
    nora.goto(f"{live_server.url}/bids/{world.bid.pk}/edit/")
    nora.fill("#id_price_per_gpu_hour", "2.31")
    nora.click("button[name=submit]")
    nora.wait_for_selector("text=Acknowledge addendum 1")
    assert nora.input_value("#id_price_per_gpu_hour") == "2.31"  # what was typed stays

    nora.goto(url)
    assert "Acknowledge addendum 1" in nora.inner_text("#pending-addenda")
    nora.click("#acknowledge-1")
    nora.wait_for_selector("text=Addendum 1 acknowledged")
    assert nora.locator("#pending-addenda").count() == 0

    nora.goto(f"{live_server.url}/bids/{world.bid.pk}/edit/")
    nora.click("button[name=submit]")
    nora.wait_for_selector("text=Revision 2 submitted and frozen")

    alice.goto(url)
    acks = alice.inner_text("#addendum-1 .acks")
    assert "Northwind" in acks and "nora" in acks
    assert AddendumAcknowledgement.objects.filter(provider=provider.org).count() == 1
