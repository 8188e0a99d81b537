"""Writes to a bid's answers. Every write validates all of it first; a bad value changes nothing."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from audit.services import Audience
from bids.audit import record_bid
from bids.models import Bid
from bids.services import require_draft_editable
from core import jsonsafe
from core.errors import ServiceError
from engine.formatting import data_size
from questionnaire.facts import bound_answers, bound_labels
from questionnaire.models import BidQuestionnaire, QuestionSet
from questionnaire.selectors import (
    current_question_set,
    question_specs,
    required_transport,
    targets_for,
)
from questionnaire.snapshot import SCHEMA, build_snapshot
from questionnaire.validation import AnswerCheck, check_answers

EXPORT_SCHEMA = "clusterbid.questionnaire-answers/1"
MAX_IMPORT_BYTES = 512 * 1024


# Beside the bid's own fields, an answer's error is named `answers.<question key>`.
ANSWERS = "answers"


class AnswersInvalid(ValidationError):
    """Answers refused, keyed by question key: the cells of the questionnaire's page. Next to
    the bid's fields (the API, the submit) the keys are `answers_named`."""


def answers_named(errors: Mapping[str, list[str]]) -> dict[str, list[str]]:
    return {f"{ANSWERS}.{key}": list(messages) for key, messages in errors.items()}


def _current_set(bid: Bid) -> QuestionSet:
    qs = current_question_set(capacity_request=bid.request)
    if qs is None:
        raise ServiceError("The buyer has not attached a questionnaire to this request.")
    return qs


def _check(bid: Bid, qs: QuestionSet, raw: Mapping[str, Any], **kw: bool) -> AnswerCheck:
    """`check_answers` with the bound questions answered by the bid's own fields."""
    specs = question_specs(question_set=qs)
    return check_answers(
        specs,
        raw,
        bound=bound_answers(specs, bid.terms_dict()),
        bound_labels=bound_labels(specs),
        **kw,
    )


def _store(
    bid: Bid, qs: QuestionSet, values: dict[str, Any], user: User | None
) -> BidQuestionnaire:
    # A bound answer lives on the bid; storing a copy would only let the two drift apart.
    bound = set(bound_labels(question_specs(question_set=qs)))
    values = {k: v for k, v in values.items() if k not in bound}
    previous = BidQuestionnaire.objects.filter(bid=bid).first()
    changed = previous is None or previous.answers != values or previous.question_set_id != qs.pk
    row, _ = BidQuestionnaire.objects.update_or_create(
        bid=bid, defaults={"question_set": qs, "answers": values, "updated_by": user}
    )
    if changed:
        # A changed answer is a changed offer: the next submit makes a new revision.
        Bid.objects.filter(pk=bid.pk).update(has_unsubmitted_changes=True)
        bid.has_unsubmitted_changes = True
        old = previous.answers if previous is not None else {}
        keys = sorted(k for k in {*old, *values} if old.get(k) != values.get(k))
        # Draft answers are the provider's notes: on the record for the provider alone.
        record_bid(
            bid=bid,
            action="bid.answers",
            user=user,
            after={"question_set": qs.version, "changed": keys},
            audience=Audience(provider_org_id=bid.provider_id),
        )
    return row


@transaction.atomic
def answers_save(*, bid: Bid, user: User | None, raw: Mapping[str, Any]) -> BidQuestionnaire:
    """Replace the draft answers with `raw` (the page's form or the API's `answers`); all valid
    or nothing saved."""
    require_draft_editable(bid=bid, user=user)
    qs = _current_set(bid)
    check = _check(bid, qs, raw)
    if check.errors:
        raise AnswersInvalid(check.errors)
    return _store(bid, qs, check.values, user)


def _line_of(text: str, key: str) -> str:
    at = text.find(json.dumps(key))
    return f"line {text.count(chr(10), 0, at) + 1}: " if at >= 0 else ""


def parse_answers_file(text: str) -> dict[str, Any]:
    """The answers mapping of an export file, or ValidationError naming the first problem."""
    try:
        doc = jsonsafe.loads(text)
    except jsonsafe.JsonProblem as exc:
        raise ValidationError(str(exc)) from None
    if not isinstance(doc, dict):
        raise ValidationError('line 1: expected an object with an "answers" object inside')
    answers = doc.get("answers", doc if "schema" not in doc else None)
    if doc.get("schema") not in (None, EXPORT_SCHEMA, SCHEMA):
        raise ValidationError(f"unknown schema {doc['schema']!r}; expected {EXPORT_SCHEMA!r}")
    if not isinstance(answers, dict):
        raise ValidationError(f'{_line_of(text, "answers")}"answers": expected an object')
    return answers


@transaction.atomic
def answers_import_json(
    *, bid: Bid, user: User | None, text: str
) -> tuple[BidQuestionnaire, list[str]]:
    """The file's answers replace the draft's. Returns the keys skipped as unknown to this set."""
    require_draft_editable(bid=bid, user=user)
    if len(text.encode()) > MAX_IMPORT_BYTES:
        raise ValidationError(f"The file is larger than {data_size(MAX_IMPORT_BYTES)}.")
    raw = parse_answers_file(text)
    qs = _current_set(bid)
    check = _check(bid, qs, raw, skip_unknown=True)
    if check.errors:
        raise AnswersInvalid(
            {
                key: [f"{_line_of(text, key)}answer '{key}': {messages[0]}"]
                for key, messages in check.errors.items()
            }
        )
    return _store(bid, qs, check.values, user), check.unknown


def answers_export(*, bid: Bid) -> dict[str, Any]:
    row = BidQuestionnaire.objects.filter(bid=bid).select_related("question_set").first()
    return {
        "schema": EXPORT_SCHEMA,
        "question_set": {"name": row.question_set.name, "version": row.question_set.version}
        if row
        else None,
        "answers": row.answers if row else {},
    }


@transaction.atomic
def answers_copy_from_bid(*, bid: Bid, source: Bid, user: User | None) -> int:
    """Start from another of the provider's own bids; answers this set doesn't ask are dropped."""
    if source.provider_id != bid.provider_id or source.pk == bid.pk:
        raise ServiceError("You can only start from another of your own bids.")
    require_draft_editable(bid=bid, user=user)
    origin = BidQuestionnaire.objects.filter(bid=source).first()
    if origin is None:
        raise ServiceError("That bid has no answers to copy.")
    qs = _current_set(bid)
    # Values that no longer fit (a choice the buyer removed) are left blank, not invented.
    check = _check(bid, qs, origin.answers, skip_unknown=True)
    return len(_store(bid, qs, check.values, user).answers)


def answers_for_submit(*, bid: Bid) -> dict[str, Any]:
    """The frozen snapshot for a new revision; AnswersInvalid names every missing or stale answer.

    A request without a questionnaire asks nothing, and freezes an empty dict. Stored keys of
    questions since removed are left behind, not refused. A question bound to a bid field
    freezes that field's value (questionnaire.facts).
    """
    qs = current_question_set(capacity_request=bid.request)
    if qs is None:
        return {}
    specs = question_specs(question_set=qs)
    row = BidQuestionnaire.objects.filter(bid=bid).first()
    stored = row.answers if row else {}
    # Bound questions freeze the bid field's value; an answer stored for one is ignored.
    check = _check(bid, qs, stored, skip_unknown=True, for_submit=True)
    if check.errors:
        raise AnswersInvalid(check.errors)
    return build_snapshot(
        question_set={"id": qs.pk, "name": qs.name, "version": qs.version},
        specs=specs,
        answers=check.values,
        targets=targets_for(capacity_request=bid.request, question_set=qs),
        required_transport=required_transport(capacity_request=bid.request, question_set=qs),
    )
