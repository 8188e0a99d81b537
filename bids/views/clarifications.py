"""The request page's "Questions and addenda" section: ask, answer, acknowledge."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from bids import clarification_selectors as cs
from bids import selectors, services
from bids.clarification_forms import AnswerForm, QuestionForm
from bids.lifecycle import REQUEST, invitee_actor, request_actor
from bids.models import CapacityRequest
from core.web import flashed_or_onto_form
from orgs.access import active_org, org_required, user_of
from orgs.choices import OrgKind
from orgs.models import Organization


def clarification_context(
    request: HttpRequest,
    req: CapacityRequest,
    org: Organization,
    *,
    question_form: QuestionForm | None = None,
    answer_form: AnswerForm | None = None,
    answering: int | None = None,
) -> dict[str, Any]:
    """What the section shows `org`; a bound form (with its errors) replaces the blank one."""
    rows = cs.question_rows(capacity_request=req, org=org)
    answer = REQUEST.decide(req, "answer", actor=request_actor(req, request.user))
    questions = []
    for row in rows:
        form = None
        if answer.allowed and row.state == "open":
            form = (
                answer_form
                if answering == row.number
                else AnswerForm(question=row.number, text=row.text)
            )
        questions.append((row, form))
    context: dict[str, Any] = {
        "questions": questions,
        "addendum_acks": cs.addendum_acks(capacity_request=req, org=org),
        "answer": answer,
    }
    if not org.is_buyer:
        actor = invitee_actor(req, request.user, provider_id=org.pk)
        context.update(
            ask=REQUEST.decide(req, "ask", actor=actor),
            acknowledge=REQUEST.decide(req, "acknowledge", actor=actor),
            question_form=question_form or QuestionForm(),
            pending_addenda=cs.addenda_unacknowledged(capacity_request=req, provider_id=org.pk),
        )
    return context


def _back(pk: int, anchor: str) -> HttpResponse:
    return redirect(reverse("bids:request-detail", args=[pk]) + anchor)


@org_required(OrgKind.PROVIDER)
@require_POST
def question_ask(request: HttpRequest, pk: int) -> HttpResponse:
    from bids.views.requests import _detail_page

    org = active_org(request)
    assert org is not None
    req = selectors.request_get_for_org(org=org, pk=pk)
    form = QuestionForm(request.POST)
    form.is_valid()
    try:
        question = services.question_ask(
            capacity_request=req,
            provider=org,
            user=user_of(request),
            text=form.cleaned_data["text"],
        )
    except ValidationError as exc:
        if flashed_or_onto_form(request, form, exc):
            return _back(pk, "#questions")
        return _detail_page(request, req, clarifications={"question_form": form})
    messages.success(
        request,
        f"Your question {question.own_number} sent. The buyer answers you, or publishes it "
        "to every invitee (perhaps reworded, never with your name).",
    )
    return _back(pk, "#questions")


@org_required(OrgKind.BUYER)
@require_POST
def question_answer(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    from bids.views.requests import _detail_page

    req = selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    question = cs.question_get_for_buyer(capacity_request=req, number=number)
    form = AnswerForm(request.POST, question=number)
    if form.is_valid():
        data = form.cleaned_data
        try:
            services.question_answer(
                question=question,
                user=user_of(request),
                answer=data["answer"],
                publish=data["visibility"] == AnswerForm.PUBLISH,
                bid_deadline=data["bid_deadline"],
                summary=data["summary"],
                confirmed=data["confirm"],
                published_text=data["published_text"],
            )
        except ValidationError as exc:
            if flashed_or_onto_form(request, form, exc):
                return _back(pk, "#questions")
        else:
            published = data["visibility"] == AnswerForm.PUBLISH
            messages.success(
                request,
                f"Question {number} answered "
                + ("and published to every invitee, without the asker's name." if published
                   else "privately: only the provider that asked reads it."),
            )  # fmt: skip
            return _back(pk, "#questions")
    return _detail_page(request, req, clarifications={"answer_form": form, "answering": number})


@org_required(OrgKind.PROVIDER)
@require_POST
def addendum_acknowledge(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    org = active_org(request)
    assert org is not None
    req = selectors.request_get_for_org(org=org, pk=pk)
    addendum = cs.addendum_get(capacity_request=req, number=number)
    try:
        services.addendum_acknowledge(addendum=addendum, provider=org, user=user_of(request))
    except ValidationError as exc:
        flashed_or_onto_form(request, QuestionForm(), exc)
    else:
        messages.success(request, f"Addendum {number} acknowledged for {org.name}.")
    return _back(pk, f"#addendum-{number}")
