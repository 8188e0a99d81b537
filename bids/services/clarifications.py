"""Questions from invited providers and the buyer's answers: private to the asker, or
published to every invitee without the asker's name (optionally as an addendum that changes
the request)."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from audit.services import parties
from bids.audit import record_invitee, record_request
from bids.lifecycle import REQUEST, invitee_actor, request_actor
from bids.models import CapacityRequest, Question, QuestionState
from bids.models.clarifications import ANSWER_MAX, QUESTION_MAX
from bids.notices import question_answered_notify, question_asked_notify
from bids.services.addenda import addendum_publish
from core.errors import ServiceError
from orgs.models import Organization


@transaction.atomic
def question_ask(
    *, capacity_request: CapacityRequest, provider: Organization, user: User, text: str
) -> Question:
    """An invited provider's member asks; the buyer's members hear who asked."""
    stored = (
        CapacityRequest.objects.select_for_update()
        .select_related("buyer")
        .get(pk=capacity_request.pk)
    )
    REQUEST.allow(stored, "ask", actor=invitee_actor(stored, user, provider_id=provider.pk))
    if not stored.invitations.filter(provider=provider).exists():
        raise ServiceError("Your organisation is not invited to this request.")
    text = (text or "").strip()
    if not text:
        raise ValidationError({"text": ["Write your question: the buyer reads this text."]})
    if len(text) > QUESTION_MAX:
        raise ValidationError(
            {
                "text": [
                    f"Keep a question to {QUESTION_MAX:,} characters; it has {len(text):,}. "
                    "Ask several questions instead."
                ]
            }
        )
    last = stored.questions.aggregate(last=Max("number"))["last"] or 0
    mine = stored.questions.filter(provider=provider).aggregate(last=Max("own_number"))["last"]
    question = Question.objects.create(
        request=stored,
        number=last + 1,
        own_number=(mine or 0) + 1,
        provider=provider,
        asked_by=user,
        asked_at=timezone.now(),
        text=text,
    )
    record_invitee(
        capacity_request=stored,
        provider_id=provider.pk,
        action="question.ask",
        user=user,
        # The asker's own count: the entry is the asker's to read, and the request-wide number
        # would tell it how many others asked.
        after={"number": question.own_number},
    )
    question_asked_notify(question=question)
    return question


@transaction.atomic
def question_answer(
    *,
    question: Question,
    user: User,
    answer: str,
    publish: bool,
    title: str = "",
    bid_deadline: datetime | None = None,
    summary: str = "",
    confirmed: bool = False,
    published_text: str = "",
) -> Question:
    """Answer privately (the asker alone reads it) or publish question and answer to every
    invitee, anonymised, in the wording `published_text` (the buyer's edit or redaction of
    the asker's text; the asker's own words when empty). A published answer that changes the
    request (a later deadline, a summary of changes) is also an addendum, linked to the
    question, which every invitee acknowledges before its next submit."""
    stored = Question.objects.select_for_update(of=("self",)).select_related(
        "request__buyer", "provider"
    )
    question = stored.get(pk=question.pk)
    request = question.request
    REQUEST.allow(request, "answer", actor=request_actor(request, user))
    if question.state != QuestionState.OPEN:
        raise ServiceError(
            f"Question {question.number} is already {question.get_state_display().lower()}; "
            "an answer stays as given (publish an addendum to add to it)."
        )
    answer = (answer or "").strip()
    summary = (summary or "").strip()
    errors: dict[str, list[str]] = {}
    if not answer:
        errors["answer"] = ["Write the answer: the asker (or every invitee) reads this text."]
    elif len(answer) > ANSWER_MAX:
        errors["answer"] = [
            f"Keep the answer to {ANSWER_MAX:,} characters; it has {len(answer):,}."
        ]
    published_text = (published_text or "").strip() or question.text
    if publish and len(published_text) > QUESTION_MAX:
        errors["published_text"] = [
            f"Keep the published question to {QUESTION_MAX:,} characters; it has "
            f"{len(published_text):,}."
        ]
    changes = bid_deadline is not None or bool(summary)
    if changes and not publish:
        errors["publish"] = [
            "A change to the request is for every invitee: publish the answer, or leave the "
            "new deadline and the summary of changes empty."
        ]
    if errors:
        raise ValidationError(errors)
    question.answer = answer
    question.answered_by = user
    question.answered_at = timezone.now()
    question.state = QuestionState.PUBLISHED if publish else QuestionState.PRIVATE
    if publish:
        done = request.questions.aggregate(last=Max("published_number"))["last"] or 0
        question.published_number = done + 1
        question.published_text = published_text
    question.save(
        update_fields=[
            "answer",
            "answered_by",
            "answered_at",
            "state",
            "published_number",
            "published_text",
        ]
    )
    if changes:
        # The addendum checks its own move (open, before the deadline) and confirmation.
        addendum_publish(
            capacity_request=request,
            user=user,
            title=(title or "").strip() or f"Answer to question {question.number}",
            text=answer,
            summary=summary,
            bid_deadline=bid_deadline,
            question=question,
            confirmed=confirmed,
        )
    _record_answer(question, user, edited=published_text != question.text)
    if not changes:
        question_answered_notify(question=question)
    return question


def _record_answer(question: Question, user: User, *, edited: bool) -> None:
    request = question.request
    if question.state == QuestionState.PUBLISHED:
        # Shared with every invitee: the published number, and whether the buyer changed the
        # wording, never who asked nor the asker's own number.
        record_request(
            capacity_request=request,
            action="question.publish",
            user=user,
            after={"number": question.published_number, "state": question.state},
        )
        if edited:
            record_request(
                capacity_request=request,
                action="question.moderate",
                user=user,
                before={"text": question.text},
                after={"published_text": question.published_text},
                audience=parties(
                    buyer_org_id=request.buyer_id, provider_org_id=question.provider_id
                ),
            )
        return
    record_request(
        capacity_request=request,
        action="question.answer_private",
        user=user,
        after={"number": question.own_number, "state": question.state},
        audience=parties(buyer_org_id=request.buyer_id, provider_org_id=question.provider_id),
    )
