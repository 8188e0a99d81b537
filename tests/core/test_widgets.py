"""The Python-rendered widgets print what Django's widget templates print."""

from __future__ import annotations

import pytest
from django import forms

from core.widgets import PlainSelect, PlainTextarea

CHOICES = [("", "not rated"), ("1", "1"), ("2", "2 <poor>"), ("3", "3 & fair")]


@pytest.mark.parametrize("value", [None, "", "2", "9"])
@pytest.mark.parametrize(
    "attrs", [None, {"id": "team_x", "aria-invalid": "true", "required": True, "disabled": False}]
)
def test_a_select_prints_as_djangos_template(value, attrs):
    ours = PlainSelect(choices=CHOICES).render("rating", value, attrs)
    django = forms.Select(choices=CHOICES).render("rating", value, attrs)
    assert ours == django


def test_a_select_with_groups_prints_as_djangos_template():
    groups = [("Good", [("4", "4"), ("5", "5")]), ("Bad", [("1", "1")])]
    assert PlainSelect(choices=groups).render("g", "5") == forms.Select(choices=groups).render(
        "g", "5"
    )


@pytest.mark.parametrize("value", [None, "", "plain", 'a "quoted" <b>comment</b> & more'])
def test_a_textarea_prints_as_djangos_template(value):
    attrs = {"id": "team_c", "rows": 2, "aria-describedby": "team_c_error"}
    ours = PlainTextarea(attrs={"rows": 2}).render("comment", value, attrs)
    django = forms.Textarea(attrs={"rows": 2}).render("comment", value, attrs)
    assert ours == django
