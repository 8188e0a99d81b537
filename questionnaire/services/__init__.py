"""Writes for the questionnaire: keyword-only functions that hold the rules."""

from questionnaire.services.answers import (
    answers_copy_from_bid,
    answers_export,
    answers_for_submit,
    answers_import_json,
    answers_save,
)
from questionnaire.services.conflicts import (
    conflicts_keep,
    require_conflicts_settled,
    unresolved_conflicts,
)
from questionnaire.services.question_sets import (
    question_add,
    question_remove,
    question_set_attach_default,
    question_set_default,
    question_set_update,
)

__all__ = [
    "answers_copy_from_bid",
    "answers_export",
    "answers_for_submit",
    "answers_import_json",
    "answers_save",
    "conflicts_keep",
    "question_add",
    "question_remove",
    "question_set_attach_default",
    "question_set_default",
    "question_set_update",
    "require_conflicts_settled",
    "unresolved_conflicts",
]
