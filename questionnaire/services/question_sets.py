"""Writes to question sets. A version providers could see is never edited: it is copied first."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from bids.audit import record_request
from bids.lifecycle import require_preparing
from bids.models import CapacityRequest
from core.errors import ServiceError
from questionnaire import defaults
from questionnaire.answer_types import (
    ANSWER_TYPES,
    ENUM,
    MULTI,
    AnswerError,
    parse_duration,
    validate_rule,
)
from questionnaire.models import Question, QuestionSet
from questionnaire.selectors import current_question_set

_KEY_RE = re.compile(r"^[a-z][a-z0-9_]*(\.[A-Za-z0-9_]+)*$")


@transaction.atomic
def question_set_default() -> QuestionSet:
    """The library copy of the default set, created from `defaults` the first time it is needed."""
    qs, created = QuestionSet.objects.get_or_create(
        request=None,
        name=defaults.DEFAULT_NAME,
        version=defaults.DEFAULT_VERSION,
        defaults={
            "target_response_minutes": defaults.DEFAULT_TARGET_RESPONSE,
            "target_restore_minutes": defaults.DEFAULT_TARGET_RESTORE,
        },
    )
    if created:
        Question.objects.bulk_create(
            Question(
                question_set=qs,
                **spec.to_dict(),
            )
            for spec in defaults.default_questions()
        )
    return qs


def _copy(
    source: QuestionSet, *, capacity_request: CapacityRequest, version: int, user: User | None
) -> QuestionSet:
    copy = QuestionSet.objects.create(
        request=capacity_request,
        name=source.name,
        version=version,
        based_on=source,
        target_response_minutes=source.target_response_minutes,
        target_restore_minutes=source.target_restore_minutes,
        required_transport=source.required_transport,
        created_by=user,
    )
    fields = [
        f.name for f in Question._meta.concrete_fields if f.name not in ("id", "question_set")
    ]
    Question.objects.bulk_create(
        Question(question_set=copy, **{name: getattr(q, name) for name in fields})
        for q in source.questions.all()
    )
    return copy


@transaction.atomic
def question_set_attach_default(
    *, capacity_request: CapacityRequest, user: User | None
) -> QuestionSet:
    """Give the request its own copy of the default set (once)."""
    existing = current_question_set(capacity_request=capacity_request)
    if existing is not None:
        return existing
    require_preparing(
        capacity_request,
        user=user,
        what="questionnaire",
        too_late="The questionnaire can only be attached while the request takes bids.",
    )
    attached = _copy(
        question_set_default(), capacity_request=capacity_request, version=1, user=user
    )
    _record(capacity_request, "questionnaire.attach", user, attached, {"name": attached.name})
    return attached


def _record(
    capacity_request: CapacityRequest,
    action: str,
    user: User | None,
    question_set: QuestionSet,
    after: dict[str, Any],
) -> None:
    """On the request's record (invitees read the questionnaire, so its changes too)."""
    record_request(
        capacity_request=capacity_request,
        action=action,
        user=user,
        after={"version": question_set.version, **after},
    )


def question_set_in_use(question_set: QuestionSet) -> bool:
    """Providers could see (and answer) this version: the request is published.

    The same for every published request, bids or none: hanging it on drafts or revisions would
    tell a sealed request's buyer that a provider had started answering."""
    request = question_set.request
    return request is not None and request.published_to_providers


def _writable(capacity_request: CapacityRequest, user: User | None) -> QuestionSet:
    require_preparing(
        capacity_request,
        user=user,
        what="questionnaire",
        too_late="This request no longer takes bids; its questionnaire is final.",
    )
    current = current_question_set(capacity_request=capacity_request)
    if current is None:
        raise ServiceError("Attach a questionnaire to this request first.")
    if question_set_in_use(current):
        return _copy(
            current, capacity_request=capacity_request, version=current.version + 1, user=user
        )
    return current


def _clock_targets(raw: Mapping[str, Any], label: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for sev in defaults.SEVERITIES:
        value = raw.get(sev)
        if value in (None, ""):
            continue
        try:
            out[sev] = parse_duration(value)
        except AnswerError as exc:
            raise ValidationError({f"target_{label}_{sev}": [str(exc)]}) from None
        if out[sev] <= 0:
            raise ValidationError({f"target_{label}_{sev}": ["Give a target above zero."]})
    return out


@transaction.atomic
def question_set_update(
    *,
    capacity_request: CapacityRequest,
    user: User | None,
    flags: Mapping[str, Mapping[str, Any]],
    target_response: Mapping[str, Any],
    target_restore: Mapping[str, Any],
    required_transport: str,
) -> QuestionSet:
    """Mark questions required / deal-breaker and set target clocks; a new version if in use."""
    current = current_question_set(capacity_request=capacity_request)
    if current is None:
        raise ServiceError("Attach a questionnaire to this request first.")
    response = _clock_targets(target_response, "response")
    restore = _clock_targets(target_restore, "restore")
    questions = {q.key: q for q in current.questions.all()}
    errors: dict[str, list[str]] = {}
    planned: dict[str, tuple[bool, str, str]] = {}
    for key, wanted in flags.items():
        question = questions.get(key)
        if question is None:
            raise ServiceError(f"No question '{key}' in this questionnaire.")
        rule = str(wanted.get("rule") or "")
        try:
            value = validate_rule(
                question.answer_type,
                rule,
                str(wanted.get("rule_value") or ""),
                [str(c[0]) for c in question.choices],
            )
        except AnswerError as exc:
            errors[f"rule-{key}"] = [str(exc)]
            continue
        planned[key] = (bool(wanted.get("required")) or bool(rule), rule, value)
    if errors:
        raise ValidationError(errors)
    changed = [
        key
        for key, (req, rule, value) in planned.items()
        if (questions[key].required, questions[key].rule, questions[key].rule_value)
        != (req, rule, value)
    ]
    settings_changed = (
        response != current.target_response_minutes
        or restore != current.target_restore_minutes
        or required_transport.strip() != current.required_transport
    )
    if not changed and not settings_changed:
        return current
    target = _writable(capacity_request, user)
    for key in changed:
        req, rule, value = planned[key]
        target.questions.filter(key=key).update(required=req, rule=rule, rule_value=value)
    target.target_response_minutes = response
    target.target_restore_minutes = restore
    target.required_transport = required_transport.strip()[:20]
    target.save(
        update_fields=["target_response_minutes", "target_restore_minutes", "required_transport"]
    )
    _record(
        capacity_request,
        "questionnaire.edit",
        user,
        target,
        {
            "questions": changed,
            "target_response_minutes": response,
            "target_restore_minutes": restore,
            "required_transport": target.required_transport,
        },
    )
    return target


def _parse_choices(text: str) -> list[list[str]]:
    """One choice a line, 'value | Label' or just 'Label' (the value is derived)."""
    choices = []
    for line in text.splitlines():
        if not line.strip():
            continue
        value, _, label = (part.strip() for part in line.partition("|"))
        label = label or value
        value = re.sub(r"[^a-z0-9]+", "_", value.lower()).strip("_")
        if not value:
            raise ValidationError({"choices": [f"'{line.strip()}' gives no usable choice value."]})
        choices.append([value, label])
    return choices


@transaction.atomic
def question_add(
    *, capacity_request: CapacityRequest, user: User | None, data: Mapping[str, Any]
) -> QuestionSet:
    errors: dict[str, list[str]] = {}
    key = str(data.get("key") or "").strip()
    text = str(data.get("text") or "").strip()
    section = str(data.get("section") or "").strip() or "Buyer's questions"
    answer_type = str(data.get("answer_type") or "")
    if not _KEY_RE.match(key):
        errors["key"] = ["Use lower-case words joined by dots, e.g. 'ops.on_call_phone'."]
    if not text:
        errors["text"] = ["Write the question."]
    if answer_type not in ANSWER_TYPES:
        errors["answer_type"] = ["Choose an answer type."]
    choices = _parse_choices(str(data.get("choices") or ""))
    if answer_type in (ENUM, MULTI) and len(choices) < 2:
        errors["choices"] = ["Give at least two choices, one a line."]
    current = current_question_set(capacity_request=capacity_request)
    if current is not None and current.questions.filter(key=key).exists():
        errors["key"] = [f"The questionnaire already has a question '{key}'."]
    if errors:
        raise ValidationError(errors)
    target = _writable(capacity_request, user)
    last = target.questions.order_by("-order").values_list("order", flat=True).first() or 0
    Question.objects.create(
        question_set=target,
        key=key,
        section=section[:80],
        text=text[:300],
        answer_type=answer_type,
        choices=choices if answer_type in (ENUM, MULTI) else [],
        required=bool(data.get("required")),
        order=last + 10,
    )
    _record(capacity_request, "questionnaire.add", user, target, {"question": key})
    return target


@transaction.atomic
def question_remove(
    *, capacity_request: CapacityRequest, user: User | None, key: str
) -> QuestionSet:
    current = current_question_set(capacity_request=capacity_request)
    if current is None or not current.questions.filter(key=key).exists():
        raise ServiceError(f"No question '{key}' in this questionnaire.")
    target = _writable(capacity_request, user)
    target.questions.filter(key=key).delete()
    _record(capacity_request, "questionnaire.remove", user, target, {"question": key})
    return target
