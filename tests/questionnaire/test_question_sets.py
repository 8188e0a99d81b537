"""Question sets are data: a lazily created default, per-request copies, versions once published."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from bids.choices import RequestStatus
from questionnaire import selectors, services
from questionnaire.defaults import DEFAULT_VERSION, STEPS
from questionnaire.models import Question, QuestionSet
from tests.factories import CapacityRequestFactory
from tests.questionnaire.conftest import full_answers


def test_the_default_is_created_once_from_its_python_definition(db):
    first = services.question_set_default()
    again = services.question_set_default()
    assert first == again and first.version == DEFAULT_VERSION and first.request is None
    keys = set(first.questions.values_list("key", flat=True))
    assert {f"{step}.owner" for step, _, _ in STEPS} <= keys
    assert {"detect.S1.response", "repair.S3.restore", "ticket.contents"} <= keys
    assert QuestionSet.objects.filter(request=None).count() == 1


def test_attaching_copies_the_default_into_the_request(buyer):
    req = CapacityRequestFactory(buyer=buyer.org)
    qs = services.question_set_attach_default(capacity_request=req, user=buyer.user)
    assert (qs.request, qs.version) == (req, 1)
    assert qs.questions.count() == services.question_set_default().questions.count()
    assert services.question_set_attach_default(capacity_request=req, user=buyer.user) == qs


def _flags(qs, key, **changes):
    q = qs.questions.get(key=key)
    return {key: {"required": q.required, "rule": q.rule, "rule_value": q.rule_value, **changes}}


def _update(req, user, flags, transport=""):
    return services.question_set_update(
        capacity_request=req,
        user=user,
        flags=flags,
        target_response={"S1": "30 min"},
        target_restore={"S1": "4 h"},
        required_transport=transport,
    )


def test_a_draft_requests_set_is_edited_in_place(buyer):
    req = CapacityRequestFactory(buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None)
    qs = services.question_set_attach_default(capacity_request=req, user=buyer.user)
    edited = _update(req, buyer.user, _flags(qs, "byos.offered", required=True))
    assert edited.pk == qs.pk and edited.version == 1
    assert edited.questions.get(key="byos.offered").required


def test_once_a_bid_answers_a_version_an_edit_makes_the_next_one(draft, provider, buyer):
    req = draft.request
    v1 = selectors.current_question_set(capacity_request=req)
    services.answers_save(bid=draft, user=provider.user, raw=full_answers(v1))
    v2 = _update(req, buyer.user, _flags(v1, "detect.S1.response", rule="max", rule_value="1 h"))
    assert v2.version == 2 and v2.based_on == v1
    assert v2.questions.get(key="detect.S1.response").rule_value == "60"
    assert v1.questions.get(key="detect.S1.response").rule == ""  # the answered version is intact
    assert selectors.current_question_set(capacity_request=req) == v2
    assert v2.target_response_minutes == {"S1": 30}


def test_every_edit_after_publishing_makes_the_next_version(asked_request, buyer):
    # Bids or none alike: a sealed request's buyer must not learn that a provider answered.
    qs = selectors.current_question_set(capacity_request=asked_request)
    added = services.question_add(
        capacity_request=asked_request,
        user=buyer.user,
        data={"key": "ops.pager", "text": "Pager number", "answer_type": "text"},
    )
    assert added.version == qs.version + 1
    removed = services.question_remove(
        capacity_request=asked_request, user=buyer.user, key="byos.dc_access"
    )
    assert removed.version == qs.version + 2
    assert not removed.questions.filter(key="byos.dc_access").exists()
    assert added.questions.filter(key="byos.dc_access").exists()
    assert qs.questions.filter(key="byos.dc_access").exists()


def test_a_published_set_is_copied_before_any_provider_answers(buyer):
    req = CapacityRequestFactory(buyer=buyer.org)
    qs = services.question_set_attach_default(capacity_request=req, user=buyer.user)
    edited = _update(req, buyer.user, _flags(qs, "byos.offered", required=True))
    assert edited.version == 2 and not qs.questions.get(key="byos.offered").required


def test_unchanged_flags_do_not_make_a_version(draft, provider, buyer):
    qs = selectors.current_question_set(capacity_request=draft.request)
    services.answers_save(bid=draft, user=provider.user, raw=full_answers(qs))
    flags = _flags(qs, "byos.offered")
    same = services.question_set_update(
        capacity_request=draft.request,
        user=buyer.user,
        flags=flags,
        target_response=qs.target_response_minutes,
        target_restore=qs.target_restore_minutes,
        required_transport="",
    )
    assert same == qs


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"key": "Bad Key", "text": "Q", "answer_type": "text"}, "key"),
        ({"key": "detect.owner", "text": "Q", "answer_type": "text"}, "key"),
        ({"key": "ops.x", "text": "", "answer_type": "text"}, "text"),
        ({"key": "ops.x", "text": "Q", "answer_type": "enum", "choices": "only one"}, "choices"),
    ],
)
def test_adding_a_question_validates_each_field(asked_request, buyer, data, field):
    with pytest.raises(ValidationError) as exc:
        services.question_add(capacity_request=asked_request, user=buyer.user, data=data)
    assert field in exc.value.message_dict


def test_a_rule_that_does_not_fit_the_type_is_refused_per_row(asked_request, buyer):
    qs = selectors.current_question_set(capacity_request=asked_request)
    with pytest.raises(ValidationError) as exc:
        _update(asked_request, buyer.user, _flags(qs, "coverage.time_zone", rule="yes"))
    assert "rule-coverage.time_zone" in exc.value.message_dict
    assert Question.objects.filter(question_set=qs, rule="yes").count() == 1


def test_a_bad_target_clock_names_its_field(asked_request, buyer):
    with pytest.raises(ValidationError) as exc:
        services.question_set_update(
            capacity_request=asked_request,
            user=buyer.user,
            flags={},
            target_response={"S2": "fast"},
            target_restore={},
            required_transport="",
        )
    assert "'fast' is not a duration" in exc.value.message_dict["target_response_S2"][0]
