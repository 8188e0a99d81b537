"""Each answer type takes what people type and refuses the rest with a message that says why."""

from __future__ import annotations

import pytest

from questionnaire.answer_types import (
    DURATION,
    ENUM,
    INTEGER,
    MULTI,
    RULE_MAX,
    RULE_ONE_OF,
    RULE_YES,
    TEXT,
    YESNO,
    AnswerError,
    QuestionSpec,
    clean_answer,
    deal_breaker_failure,
    format_answer,
    validate_rule,
)

CHOICES = (("provider", "Provider"), ("buyer", "Buyer"), ("shared", "Shared"))


def spec(answer_type: str, **kw: object) -> QuestionSpec:
    return QuestionSpec(key="k", section="Sec", text="Q", answer_type=answer_type, **kw)


@pytest.mark.parametrize(
    ("raw", "minutes"),
    [("45 min", 45), ("1.5 h", 90), ("4h", 240), ("2 days", 2880), (30, 30)],
)
def test_it_reads_durations_in_minutes_or_hours(raw, minutes):
    assert clean_answer(spec(DURATION), raw) == minutes


@pytest.mark.parametrize(
    ("answer_type", "raw", "message"),
    [
        (DURATION, "15 parsecs", "'15 parsecs' is not a duration"),
        (DURATION, "soon", "'soon' is not a duration"),
        # Typed '4' could mean minutes or hours: the person says which.
        (DURATION, "4", "'4' needs a unit: '4 min' or '4 h'"),
        (DURATION, -5, "-5 is not a duration"),
        (DURATION, True, "True is not a duration"),
        (INTEGER, "3.5", "'3.5' is not a whole number"),
        (INTEGER, "-1", "-1 is negative"),
        (INTEGER, "many", "'many' is not a whole number"),
        (ENUM, "maybe", "'maybe' is not one of: buyer, provider, shared"),
        (MULTI, ["provider", "nobody"], "'nobody' is not one of"),
        (YESNO, "perhaps", "'perhaps' is not yes or no"),
        (YESNO, {"value": "no", "comment": " "}, "a 'no' needs a comment"),
        (TEXT, 12, "12 is not text"),
        (TEXT, "x" * 2001, "keep it under 2000"),
    ],
)
def test_it_refuses_bad_input_with_a_field_message(answer_type, raw, message):
    with pytest.raises(AnswerError, match=message.replace("(", r"\(").replace(")", r"\)")):
        clean_answer(spec(answer_type, choices=CHOICES), raw)


def test_a_no_with_a_comment_is_kept_and_blank_means_unanswered():
    yesno = spec(YESNO)
    assert clean_answer(yesno, {"value": "no", "comment": " fixed window "}) == {
        "value": "no",
        "comment": "fixed window",
    }
    assert clean_answer(yesno, True) == {"value": "yes", "comment": ""}
    assert clean_answer(yesno, {"value": "", "comment": "only a comment"}) is None
    assert clean_answer(spec(DURATION), "  ") is None
    assert clean_answer(spec(MULTI, choices=CHOICES), []) is None


def test_multi_choices_are_deduplicated_and_sorted():
    assert clean_answer(spec(MULTI, choices=CHOICES), ["shared", "buyer", "shared"]) == [
        "buyer",
        "shared",
    ]


def test_durations_print_back_in_a_unit_people_read():
    # The shared rule (engine.formatting.duration): one number, one unit, read back unchanged.
    assert [format_answer(spec(DURATION), m) for m in (30, 90, 150, 240, 2880)] == [
        "30 min",
        "90 min",
        "150 min",
        "4 h",
        "2 d",
    ]


def test_deal_breakers_name_the_question_the_answer_and_the_condition():
    must_yes = spec(YESNO, rule=RULE_YES)
    assert deal_breaker_failure(must_yes, {"value": "yes", "comment": ""}) is None
    reason = deal_breaker_failure(must_yes, {"value": "no", "comment": "we don't"})
    assert reason == "Sec › Q: answered No — we don't (must be yes)"

    at_most = spec(DURATION, rule=RULE_MAX, rule_value="60")
    assert deal_breaker_failure(at_most, 60) is None
    assert deal_breaker_failure(at_most, 240) == "Sec › Q: answered 4 h (must be ≤ 1 h)"

    one_of = spec(ENUM, choices=CHOICES, rule=RULE_ONE_OF, rule_value="provider|shared")
    assert "must be Provider or Shared" in (deal_breaker_failure(one_of, "buyer") or "")


def test_a_rule_must_fit_its_answer_type():
    assert validate_rule(DURATION, RULE_MAX, "2 h", []) == "120"
    with pytest.raises(AnswerError, match="cannot be a 'yes' deal-breaker"):
        validate_rule(DURATION, RULE_YES, "", [])
    with pytest.raises(AnswerError, match="acceptable choices"):
        validate_rule(ENUM, RULE_ONE_OF, "nobody", ["provider"])
