"""Turn the questionnaire page's POST into raw answers, and answers into inputs to render."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.http import QueryDict

from core.uploads import NamedFileField
from engine.formatting import duration
from questionnaire.answer_types import (
    ANSWER_TYPES,
    DURATION,
    MULTI,
    YESNO,
    QuestionSpec,
    describe_rule,
)
from questionnaire.defaults import CLOCKS, SEVERITIES, STEPS
from questionnaire.facts import binding_of
from questionnaire.models import RULE_CHOICES
from questionnaire.snapshot import misses_target


def input_name(key: str) -> str:
    return f"q-{key}"


def raw_from_post(specs: list[QuestionSpec], post: QueryDict) -> dict[str, Any]:
    raw: dict[str, Any] = {}
    for spec in specs:
        name = input_name(spec.key)
        if spec.answer_type == MULTI:
            raw[spec.key] = post.getlist(name)
        elif spec.answer_type == YESNO:
            raw[spec.key] = {
                "value": post.get(name, ""),
                "comment": post.get(f"{name}-comment", ""),
            }
        else:
            raw[spec.key] = post.get(name, "")
    return raw


@dataclass
class FieldView:
    spec: QuestionSpec
    value: str = ""
    selected: list[str] = field(default_factory=list)
    comment: str = ""
    errors: list[str] = field(default_factory=list)
    misses: bool = False
    bound: str = ""  # "Spare nodes = 2": answered by that bid field, shown read-only

    @property
    def bound_field(self) -> str:
        binding = binding_of(self.spec)
        return binding.field if binding is not None else ""

    @property
    def name(self) -> str:
        return input_name(self.spec.key)

    @property
    def input_id(self) -> str:
        return "id-" + self.name.replace(".", "-")

    @property
    def rule_text(self) -> str:
        return describe_rule(self.spec)


def _display(spec: QuestionSpec, value: Any) -> FieldView:
    view = FieldView(spec)
    if value is None:
        return view
    if spec.answer_type == DURATION:
        view.value = duration(int(value))
    elif spec.answer_type == MULTI:
        view.selected = list(value)
    elif spec.answer_type == YESNO:
        view.value, view.comment = value.get("value", ""), value.get("comment", "")
    else:
        view.value = str(value)
    return view


def field_views(
    specs: list[QuestionSpec],
    *,
    answers: Mapping[str, Any],
    raw: Mapping[str, Any] | None,
    errors: Mapping[str, list[str]],
    targets: Mapping[str, Mapping[str, Any]],
    bound: Mapping[str, str] | None = None,
) -> dict[str, FieldView]:
    """One input per question: the posted text when re-showing errors, else the saved value;
    a bound question shows its bid field's value instead of an input."""
    views = {}
    for spec in specs:
        if bound and spec.key in bound:
            view = FieldView(spec, bound=bound[spec.key])
        elif raw is not None:
            posted = raw.get(spec.key)
            view = FieldView(spec)
            if isinstance(posted, list):
                view.selected = [str(p) for p in posted]
            elif isinstance(posted, dict):
                view.value, view.comment = posted.get("value", ""), posted.get("comment", "")
            else:
                view.value = str(posted or "")
        else:
            view = _display(spec, answers.get(spec.key))
            view.misses = misses_target(spec, answers.get(spec.key), targets)
        view.errors = list(errors.get(spec.key, []))
        views[spec.key] = view
    return views


@dataclass
class MatrixStep:
    key: str
    label: str
    help_text: str
    owner: FieldView | None
    evidence: FieldView | None
    clocks: list[FieldView | None]


def matrix_layout(
    views: Mapping[str, FieldView],
) -> tuple[list[MatrixStep], list[tuple[str, list[FieldView]]]]:
    """Matrix cells as a step × column grid; everything else grouped by section."""
    placed: set[str] = set()
    steps = []
    for key, label, help_text in STEPS:

        def take(column: str, step: str = key) -> FieldView | None:
            view = views.get(f"{step}.{column}")
            if view is not None:
                placed.add(view.spec.key)
            return view

        clocks = [take(f"{sev}.{clock}") for sev in SEVERITIES for clock in CLOCKS]
        owner, evidence = take("owner"), take("evidence")
        if owner or evidence or any(clocks):
            steps.append(MatrixStep(key, label, help_text, owner, evidence, clocks))
    sections: dict[str, list[FieldView]] = {}
    for key, view in views.items():
        if key not in placed:
            sections.setdefault(view.spec.section, []).append(view)
    return steps, list(sections.items())


class ImportForm(forms.Form):
    file = NamedFileField(label="Answers file (JSON)")


class AddQuestionForm(forms.Form):
    section = forms.CharField(max_length=80, required=False, initial="Buyer's questions")
    key = forms.CharField(max_length=80, help_text="Lower-case words joined by dots.")
    text = forms.CharField(max_length=300, label="Question")
    answer_type = forms.ChoiceField(choices=list(ANSWER_TYPES.items()))
    choices = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        help_text="For choice questions: one a line, 'value | Label'.",
    )
    required = forms.BooleanField(required=False)


RULES = RULE_CHOICES
