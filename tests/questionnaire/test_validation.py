"""One validator for answers: the page, the import, the API and the submit all call it."""

from __future__ import annotations

from questionnaire.answer_types import DURATION, TEXT, QuestionSpec
from questionnaire.validation import check_answers

SPECS = [
    QuestionSpec(
        key="detect.S1.response", section="Clocks", text="S1 response", answer_type=DURATION
    ),
    QuestionSpec(
        key="coverage.tz", section="Coverage", text="Time zone", answer_type=TEXT, required=True
    ),
]


def test_errors_are_keyed_by_question_key() -> None:
    check = check_answers(SPECS, {"detect.S1.response": "15 parsecs", "coverage.tz": "CET"})
    assert list(check.errors) == ["detect.S1.response"]
    assert "'15 parsecs' is not a duration" in check.errors["detect.S1.response"][0]
    assert check.values == {"coverage.tz": "CET"}


def test_a_question_not_asked_is_named_unless_skipped() -> None:
    check = check_answers(SPECS, {"detect.S1.respons": "15 min"})
    assert check.errors == {
        "detect.S1.respons": ["This request's questionnaire asks no question 'detect.S1.respons'."]
    }
    skipped = check_answers(SPECS, {"detect.S1.respons": "15 min"}, skip_unknown=True)
    assert skipped.errors == {} and skipped.unknown == ["detect.S1.respons"]


def test_a_submit_needs_every_required_answer_and_rechecks_stored_ones() -> None:
    check = check_answers(SPECS, {"detect.S1.response": "bad"}, for_submit=True)
    assert check.errors == {
        "detect.S1.response": [
            "Answer 'detect.S1.response' is no longer valid: "
            "'bad' is not a duration (use minutes or hours, e.g. '30 min')"
        ],
        "coverage.tz": ["Required answer missing: Coverage › Time zone"],
    }
    assert check_answers(SPECS, {}).errors == {}  # a draft may leave answers out
