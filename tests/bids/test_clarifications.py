"""Clarifications: an invited provider asks, the buyer answers privately or publishes without
the asker's name (as an addendum when it changes the request), and every invitee acknowledges
each addendum before its next submit."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from audit.selectors import entries_for
from bids import clarification_selectors as cs
from bids import services
from bids.models import Question
from core.errors import ServiceError
from core.lifecycle import MoveRefused
from notices.choices import Event
from notices.models import Notice
from tests.factories import OrganizationFactory

pytestmark = pytest.mark.django_db

ASKED = "Is the backend fabric rail-optimised on every node?"


def _ask(world, provider, text: str = ASKED) -> Question:
    return services.question_ask(
        capacity_request=world.request, provider=provider.org, user=provider.user, text=text
    )


def _page(role, world) -> str:
    response = role.client().get(reverse("bids:request-detail", args=[world.request.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _section(html: str, marker: str = 'id="questions"') -> str:
    start = html.index(marker)
    return html[start : html.index("</section>", start)]


def test_a_question_reaches_the_buyer_with_the_askers_name(world, buyer, provider):
    question = _ask(world, provider)
    assert (question.number, question.state) == (1, "open")
    notice = Notice.objects.get(event=Event.QUESTION_ASKED, recipient=buyer.user)
    assert "Northwind" in notice.subject and ASKED in notice.body
    section = _section(_page(buyer, world))
    assert ASKED in section and "Northwind" in section and "nora" in section


def test_a_providers_own_question_shows_its_state(world, buyer, provider):
    question = _ask(world, provider)
    assert "Open" in _section(_page(provider, world))
    services.question_answer(question=question, user=buyer.user, answer="Yes.", publish=False)
    section = _section(_page(provider, world))
    assert "Answered privately" in section and "Yes." in section


@pytest.mark.parametrize(
    ("text", "message"),
    [("   ", "Write your question"), ("x" * 4_001, "Keep a question to 4,000 characters")],
)
def test_a_bad_question_is_refused_naming_the_text(world, provider, text, message):
    with pytest.raises(ValidationError) as exc:
        _ask(world, provider, text)
    assert message in exc.value.message_dict["text"][0]


def test_the_buyer_and_strangers_cannot_ask(world, buyer, outsider):
    # The buyer acting for its own organisation is no invitee.
    with pytest.raises(ServiceError, match="not invited"):
        services.question_ask(
            capacity_request=world.request, provider=buyer.org, user=buyer.user, text=ASKED
        )
    # A member of no invited provider has no provider role here: refused by the table (403).
    stranger = OrganizationFactory(kind="provider")
    with pytest.raises(MoveRefused) as refused:
        services.question_ask(
            capacity_request=world.request, provider=stranger, user=outsider.user, text=ASKED
        )
    assert refused.value.status_code == 403
    assert not Question.objects.exists()


def test_a_private_answer_stays_between_the_buyer_and_the_asker(
    world, buyer, provider, rival_provider
):
    question = _ask(world, provider)
    services.question_answer(
        question=question, user=buyer.user, answer="Yes, 8 rails.", publish=False
    )
    assert cs.question_rows(capacity_request=world.request, org=rival_provider.org) == []
    rival_page = _page(rival_provider, world)
    assert ASKED not in rival_page and "8 rails" not in rival_page
    assert Notice.objects.filter(event=Event.QUESTION_ANSWERED, recipient=provider.user).exists()
    assert not Notice.objects.filter(recipient=rival_provider.user, event__startswith="question")


def test_a_published_answer_never_names_the_asker_to_a_rival(
    world, buyer, provider, rival_provider
):
    question = _ask(world, provider)
    services.question_answer(
        question=question, user=buyer.user, answer="Yes, 8 rails.", publish=True
    )
    rival_page = _page(rival_provider, world)
    assert ASKED in rival_page and "8 rails" in rival_page
    assert "Northwind" not in rival_page and "nora" not in rival_page
    (row,) = cs.question_rows(capacity_request=world.request, org=rival_provider.org)
    assert row.asker_org is None and row.asker_name is None and not row.own
    # Notices and the audit trail a rival reads: the question, never who asked it.
    notice = Notice.objects.get(event=Event.QUESTION_ANSWERED, recipient=rival_provider.user)
    assert "8 rails" in notice.body and "Northwind" not in notice.body + notice.subject
    seen = entries_for(org=rival_provider.org, obj_key=f"request:{world.request.pk}")
    assert "question.publish" in [e.action for e in seen]
    assert "question.ask" not in [e.action for e in seen]
    assert all("Northwind" not in str(e.after) and e.actor_name != "nora" for e in seen)
    # The asker still sees it as its own; the buyer still sees who asked.
    (own,) = cs.question_rows(capacity_request=world.request, org=provider.org)
    assert own.own and own.asker_org == "Northwind" and own.state == "published"
    assert "Northwind" in _section(_page(buyer, world))


def test_a_question_is_answered_once(world, buyer, provider):
    question = _ask(world, provider)
    services.question_answer(question=question, user=buyer.user, answer="Yes.", publish=False)
    with pytest.raises(ServiceError, match="already answered privately"):
        services.question_answer(question=question, user=buyer.user, answer="No.", publish=True)


def test_a_change_to_the_request_must_be_published(world, buyer, provider):
    question = _ask(world, provider)
    later = world.request.bid_deadline + timedelta(days=2)
    with pytest.raises(ValidationError) as exc:
        services.question_answer(
            question=question, user=buyer.user, answer="Yes.", publish=False, bid_deadline=later
        )
    assert "publish the answer" in exc.value.message_dict["publish"][0]


def test_an_answer_that_extends_the_deadline_is_a_new_request_version(
    world, buyer, provider, rival_provider
):
    question = _ask(world, provider)
    before = world.request.bid_deadline
    later = before + timedelta(days=3)
    services.question_answer(
        question=question,
        user=buyer.user,
        answer="We extend the deadline by three days.",
        publish=True,
        bid_deadline=later,
        summary="Bid deadline moved three days later.",
        confirmed=True,
    )
    world.request.refresh_from_db()
    assert world.request.bid_deadline == later
    addendum = world.request.addenda.get()
    assert (addendum.number, addendum.version) == (1, 2)
    assert (addendum.deadline_before, addendum.deadline_after) == (before, later)
    assert addendum.question == question
    rival_page = _page(rival_provider, world)
    changes = _section(rival_page, 'id="addendum-1-changes"')
    assert "Bid deadline" in changes and "→" in changes
    assert "Northwind" not in rival_page
    notice = Notice.objects.get(event=Event.ADDENDUM, recipient=rival_provider.user)
    assert "Bid deadline:" in notice.body and ASKED in notice.body
    assert "Northwind" not in notice.body


def test_an_addendum_only_extends_the_deadline(world, buyer):
    earlier = world.request.bid_deadline - timedelta(hours=1)
    with pytest.raises(ValidationError) as exc:
        services.addendum_publish(
            capacity_request=world.request,
            user=buyer.user,
            title="T",
            text="X",
            bid_deadline=earlier,
            confirmed=True,
        )
    assert "only extend the bid deadline" in exc.value.message_dict["bid_deadline"][0]


def test_a_submit_waits_for_every_addendum_to_be_acknowledged(
    world, buyer, provider, rival_provider
):
    for title in ("Site visit", "Power"):
        services.addendum_publish(
            capacity_request=world.request,
            user=buyer.user,
            title=title,
            text="Read me.",
            confirmed=True,
        )
    services.bid_save_draft(
        bid=world.bid, user=provider.user, data={"price_per_gpu_hour": Decimal("2.35")}
    )
    with pytest.raises(ServiceError, match="Acknowledge addenda 1 and 2"):
        services.bid_submit(bid=world.bid, user=provider.user)
    for addendum in world.request.addenda.all():
        services.addendum_acknowledge(addendum=addendum, provider=provider.org, user=provider.user)
    assert services.bid_submit(bid=world.bid, user=provider.user).number == 2
    # The buyer sees who acknowledged which addendum; a rival sees nothing of it.
    section = _section(_page(buyer, world), 'id="addenda"')
    assert "Northwind" in section and "nora" in section and "not yet" in section
    seen = entries_for(org=rival_provider.org, obj_key=f"request:{world.request.pk}")
    assert "addendum.acknowledge" not in [e.action for e in seen]
    mine = entries_for(org=buyer.org, obj_key=f"request:{world.request.pk}")
    assert [e.actor_name for e in mine if e.action == "addendum.acknowledge"] == ["nora"] * 2


def test_acknowledging_twice_keeps_the_first_record(world, buyer, provider):
    addendum = services.addendum_publish(
        capacity_request=world.request, user=buyer.user, title="T", text="X", confirmed=True
    )
    first = services.addendum_acknowledge(
        addendum=addendum, provider=provider.org, user=provider.user
    )
    again = services.addendum_acknowledge(
        addendum=addendum, provider=provider.org, user=provider.user
    )
    assert first.pk == again.pk


def test_the_bid_form_keeps_what_was_typed_when_an_addendum_blocks_the_submit(
    world, buyer, provider
):
    from bids.forms import BidForm

    services.addendum_publish(
        capacity_request=world.request, user=buyer.user, title="T", text="X", confirmed=True
    )
    form = BidForm(instance=world.bid)
    data = {name: form[name].value() for name in form.fields}
    data = {k: ("" if v is None else v) for k, v in data.items()}
    data["acceptable_regions"] = data.get("acceptable_regions") or []
    data.update(site="Typed site FR9", submit="1")
    response = provider.client().post(reverse("bids:bid-edit", args=[world.bid.pk]), data)
    html = response.content.decode()
    assert response.status_code == 200
    assert "Acknowledge addendum 1" in html and "Typed site FR9" in html


def test_a_failed_question_keeps_what_was_typed(world, provider):
    long = "Why? " * 900
    response = provider.client().post(
        reverse("bids:question-ask", args=[world.request.pk]), {"text": long}
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "Keep a question to 4,000 characters" in html and "Why? Why?" in html


def test_a_failed_answer_keeps_what_was_typed(world, buyer, provider):
    question = _ask(world, provider)
    later = world.request.bid_deadline + timedelta(days=1)
    response = buyer.client().post(
        reverse("bids:question-answer", args=[world.request.pk, question.number]),
        {
            "q1-answer": "Typed answer stays",
            "q1-visibility": "publish",
            "q1-bid_deadline": later.strftime("%Y-%m-%dT%H:%M"),
        },
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "Typed answer stays" in html and "Confirmation required" in html


def test_the_request_page_queries_do_not_grow_with_questions(
    world, buyer, provider, django_assert_max_num_queries
):
    client = buyer.client()
    _ask(world, provider)
    services.addendum_publish(
        capacity_request=world.request, user=buyer.user, title="T", text="X", confirmed=True
    )
    url = reverse("bids:request-detail", args=[world.request.pk])
    client.get(url)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as few:
        client.get(url)
    for n in range(5):
        _ask(world, provider, f"Question {n}?")
        services.addendum_publish(
            capacity_request=world.request, user=buyer.user, title=f"A{n}", text="X", confirmed=True
        )
    with django_assert_max_num_queries(len(few.captured_queries)):
        client.get(url)


def test_an_approver_does_not_answer_questions(world, buyer_approver, buyer_requester, provider):
    question = _ask(world, provider)
    with pytest.raises(MoveRefused) as refused:
        services.question_answer(
            question=question, user=buyer_approver.user, answer="Yes.", publish=False
        )
    assert refused.value.status_code == 403 and "Requester" in str(refused.value)
    html = _page(buyer_approver, world)
    assert 'id="answer-form-1"' not in html and 'id="answer-blocked"' in html
    assert 'id="answer-form-1"' in _page(buyer_requester, world)
    services.question_answer(
        question=question, user=buyer_requester.user, answer="Yes.", publish=False
    )
