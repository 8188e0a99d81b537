"""`field_block` prints what the `core/_field.html` include prints, for every kind of field."""

from __future__ import annotations

import pytest
from django import forms
from django.template.loader import render_to_string

from core.templatetags.fields import field_block
from core.widgets import PlainSelect, PlainTextarea


class Sample(forms.Form):
    rating = forms.ChoiceField(
        choices=[("", "not rated"), ("1", "1 <poor>")], required=False, widget=PlainSelect
    )
    comment = forms.CharField(
        required=False, widget=PlainTextarea(attrs={"rows": 2}), help_text="Why, in a line"
    )
    name = forms.CharField(label='Name & "alias"', max_length=5)
    agree = forms.BooleanField(required=False)
    price = forms.DecimalField(min_value=0, help_text="$ per GPU-hour <excl. VAT>")


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"rating": "1", "comment": "a <b>bold</b> & plain", "name": "ok", "price": "1.5"},
        {"rating": "9", "name": "far too long", "price": "-1", "agree": "on"},
    ],
    ids=["unbound", "valid", "errors"],
)
def test_every_field_prints_as_the_include_prints_it(data):
    form = Sample(data=data, auto_id="team_%s")
    form.is_valid()
    for bound in form:
        assert field_block(bound) == render_to_string("core/_field.html", {"field": bound}), (
            bound.name
        )
    assert data is None or data.get("name") != "far too long" or form["name"].errors
