"""A moderated question in a real browser: a provider asks with a price in it; the buyer
rewords it before publishing it to every invitee; a rival reads only the buyer's wording under
the published count, and the asker reads its own words beside the published ones. Each
provider's own questions are numbered from 1: no number says that anyone else asked."""

from __future__ import annotations

import pytest

from bids.models import Question

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ASKED = "Would you take a 6-month term if we give a 5 % discount on our quoted rate?"
REWORDED = "Would you take a 6-month term at a discount?"


def test_a_moderated_question(live_server, new_page, login_as, world, provider, rival_provider):
    url = f"{live_server.url}/requests/{world.request.pk}/"

    rita = login_as(new_page(), "rita")
    rita.goto(url)
    rita.fill("#id_text", "Which leaf switches serve the second pod?")
    rita.click("#question-submit")
    rita.wait_for_selector("text=Your question 1 sent.")

    nora = login_as(new_page(), "nora")
    nora.goto(url)
    nora.fill("#id_text", ASKED)
    nora.click("#question-submit")
    nora.wait_for_selector("text=Your question 1 sent.")  # its own count, not the request's
    assert "Question 2" not in nora.inner_text("#questions")

    alice = login_as(new_page(), "alice")
    alice.goto(url)
    assert "Northwind" in alice.inner_text("#question-2")  # the buyer sees who asked
    assert alice.input_value("#id_q2-published_text") == ASKED  # starts from the asker's words
    alice.fill("#id_q2-answer", "Yes: a 6-month term is priced on request.")
    alice.check("input[name='q2-visibility'][value='publish']")
    alice.fill("#id_q2-published_text", REWORDED)
    alice.click("#answer-submit-2")
    alice.wait_for_selector("text=published to every invitee")
    assert REWORDED in alice.inner_text("#question-2")

    rita.goto(url)
    published = rita.inner_text("#question-p1")
    assert "Published question 1" in published and REWORDED in published
    assert "priced on request" in published
    section = rita.inner_text("#questions")
    assert "5 %" not in section and "Northwind" not in section and "nora" not in section
    assert "Your question 1" in section and "Question 2" not in section

    nora.goto(url)
    own = nora.inner_text("#question-1")
    assert ASKED in own and REWORDED in own and "reworded by the buyer" in own
    question = Question.objects.get(provider=provider.org)
    assert (question.state, question.published_text) == ("published", REWORDED)
