"""Q&A moderation: the buyer edits or redacts a question before publishing it to every
invitee; the asker reads the published wording beside its own; every provider counts its own
questions and the published ones, so no number tells it that others asked."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from audit.models import AuditEntry
from audit.selectors import entries_for
from bids import clarification_selectors as cs
from bids import services
from notices.choices import Event
from notices.models import Notice

pytestmark = pytest.mark.django_db

ASKED = "Would you accept a 6-month term if we give a 5 % discount on our 2.40 rate?"
REWORDED = "Would you accept a 6-month term at a discount?"


def _ask(world, role, text: str = ASKED):
    return services.question_ask(
        capacity_request=world.request, provider=role.org, user=role.user, text=text
    )


def _page(role, world) -> str:
    html = role.client().get(reverse("bids:request-detail", args=[world.request.pk]))
    page = html.content.decode()
    start = page.index('id="questions"')
    return page[start : page.index("</section>", start)]


def test_each_provider_counts_its_own_questions(world, buyer, provider, rival_provider):
    _ask(world, provider, "First of ours?")
    _ask(world, rival_provider, "The rival's only one?")
    second = _ask(world, provider, "Second of ours?")
    assert (second.number, second.own_number) == (3, 2)

    rival = cs.question_rows(capacity_request=world.request, org=rival_provider.org)
    assert [(r.number, r.label) for r in rival] == [(1, "Your question 1")]
    mine = cs.question_rows(capacity_request=world.request, org=provider.org)
    assert [r.label for r in mine] == ["Your question 1", "Your question 2"]
    page = _page(rival_provider, world)
    assert "Question 2" not in page and "question 2" not in page
    # The buyer orders them all, with who asked.
    assert [r.label for r in cs.question_rows(capacity_request=world.request, org=buyer.org)] == [
        "Question 1",
        "Question 2",
        "Question 3",
    ]
    # The asker's own entry on the trail names its own count, not the request-wide one.
    entry = AuditEntry.objects.filter(action="question.ask", org_id=provider.org.pk).last()
    assert entry.after == {"number": 2}


def test_a_redacted_question_reaches_the_others_in_the_buyers_words_only(
    world, buyer, provider, rival_provider
):
    _ask(world, rival_provider, "An unpublished question of the rival's?")
    question = _ask(world, provider)
    services.question_answer(
        question=question,
        user=buyer.user,
        answer="Yes, on the same terms.",
        publish=True,
        published_text=REWORDED,
    )
    question.refresh_from_db()
    assert (question.published_number, question.published_text) == (1, REWORDED)
    assert question.text == ASKED  # the asker's words are kept

    # The rival reads the buyer's wording under the published count, and nothing of the asker.
    (published,) = [
        r
        for r in cs.question_rows(capacity_request=world.request, org=rival_provider.org)
        if not r.own
    ]
    assert (published.label, published.text) == ("Published question 1", REWORDED)
    page = _page(rival_provider, world)
    assert REWORDED in page and "5 %" not in page and "2.40" not in page
    notice = Notice.objects.get(event=Event.QUESTION_ANSWERED, recipient=rival_provider.user)
    assert REWORDED in notice.body and "5 %" not in notice.body
    assert "published question 1" in notice.subject
    seen = " ".join(
        str(e.after) + str(e.before)
        for e in entries_for(org=rival_provider.org, obj_key=f"request:{world.request.pk}")
    )
    assert "5 %" not in seen and "question.moderate" not in seen

    # The asker reads both: its own words and what was published.
    mine = _page(provider, world)
    assert ASKED.replace("'", "&#x27;") in mine and REWORDED in mine
    assert "reworded by the buyer" in mine
    moderate = AuditEntry.objects.get(action="question.moderate")
    assert moderate.before == {"text": ASKED} and moderate.after == {"published_text": REWORDED}
    assert not moderate.shared and moderate.provider_org_id == provider.org.pk


def test_publishing_without_a_rewording_uses_the_askers_words(world, buyer, provider):
    question = _ask(world, provider, "Is the fabric rail-optimised?")
    services.question_answer(question=question, user=buyer.user, answer="Yes.", publish=True)
    question.refresh_from_db()
    assert question.published_text == "Is the fabric rail-optimised?"
    assert not AuditEntry.objects.filter(action="question.moderate").exists()


def test_a_published_wording_too_long_is_refused_on_the_field_and_the_form_keeps_it(
    world, buyer, provider
):
    question = _ask(world, provider)
    with pytest.raises(ValidationError) as refused:
        services.question_answer(
            question=question, user=buyer.user, answer="Yes.", publish=True,
            published_text="x" * 4_001,
        )  # fmt: skip
    assert "published_text" in refused.value.message_dict
    url = reverse("bids:question-answer", args=[world.request.pk, question.number])
    response = buyer.client().post(
        url,
        {"q1-answer": "Yes, kept.", "q1-visibility": "publish", "q1-published_text": "y" * 4_001},
    )
    page = response.content.decode()
    assert "Keep the published question to 4,000 characters" in page
    assert "Yes, kept." in page and "y" * 4_001 in page
