"""Forms of the clarification channel. Nothing is required or bounded here: the services word
each field's error, and the page shows the form again with what was typed."""

from __future__ import annotations

from django import forms
from django.http import QueryDict

from bids.forms import DATETIME, ConfirmForm


class QuestionForm(forms.Form):
    text = forms.CharField(
        label="Your question",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="The buyer sees who asked. If it publishes the answer, other invitees see "
        "the question (the buyer may reword or redact it first) and the answer, never your "
        "organisation's or your name.",
    )


class AnswerForm(ConfirmForm):
    PRIVATE, PUBLISH = "private", "publish"

    answer = forms.CharField(
        label="Answer", required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
    visibility = forms.ChoiceField(
        label="Who reads it",
        choices=[
            (PRIVATE, "Only the provider that asked"),
            (PUBLISH, "Every invited provider (the asker's name is never shown)"),
        ],
        initial=PRIVATE,
        widget=forms.RadioSelect,
    )
    published_text = forms.CharField(
        label="The question as every invitee reads it",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Published answers only. Edit or redact the asker's words first: take out a "
        "price, a name or anything that tells who asked. The asker still reads its own words.",
    )
    bid_deadline = forms.DateTimeField(
        label="Extend the bid deadline to",
        required=False,
        widget=DATETIME,
        help_text="Optional; published answers only. The answer then becomes an addendum.",
    )
    summary = forms.CharField(
        label="What changed in the request",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Optional; published answers only. The answer then becomes an addendum.",
    )
    confirm = forms.BooleanField(
        required=False,
        label="I confirm (needed when the answer changes the request): every invited provider "
        "is told now, and the addendum cannot be edited or withdrawn.",
    )

    def __init__(self, data: QueryDict | None = None, *, question: int, text: str = "") -> None:
        # One form per question on one page: the prefix keeps their ids apart.
        super().__init__(data, prefix=f"q{question}", initial={"published_text": text})
