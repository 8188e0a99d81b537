"""Form widgets render through Jinja2 with the markup Django's own templates give, and the
admin's widgets, which only Django's engine has templates for, still render."""

from __future__ import annotations

import re

import pytest
from django import forms
from django.forms.renderers import DjangoTemplates, get_default_renderer
from django.urls import reverse

from core.renderers import WidgetRenderer


class EveryWidget(forms.Form):
    name = forms.CharField(max_length=20, help_text="Who", initial="<b>Ada</b>")
    count = forms.IntegerField(min_value=0, widget=forms.NumberInput(attrs={"step": "any"}))
    rating = forms.ChoiceField(choices=[("", "not rated"), ("1", "1"), ("2", "2")], required=False)
    regions = forms.MultipleChoiceField(
        choices=[("eu", "EU"), ("us", "US")], widget=forms.CheckboxSelectMultiple
    )
    agreed = forms.BooleanField(required=False)
    when = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))
    note = forms.CharField(widget=forms.Textarea, required=False)
    secret = forms.CharField(widget=forms.HiddenInput, required=False)


def _squeezed(html: str) -> str:
    return re.sub(r">\s+<", "><", re.sub(r"\s+", " ", html)).strip()


def test_the_settings_renderer_is_the_jinja2_one():
    assert isinstance(get_default_renderer(), WidgetRenderer)


@pytest.mark.parametrize("data", [None, {"name": "<b>" + "x" * 30, "count": "-1", "rating": "2"}])
def test_widgets_print_what_djangos_templates_print(data):
    """Bound with errors or unbound: the same elements, attributes, values and escaping."""
    fast = EveryWidget(data, renderer=WidgetRenderer())
    plain = EveryWidget(data, renderer=DjangoTemplates())
    for name in EveryWidget.base_fields:
        assert _squeezed(str(fast[name])) == _squeezed(str(plain[name])), name
    assert _squeezed(fast.as_div()) == _squeezed(plain.as_div())
    assert "&lt;b&gt;" in str(fast["name"]) and "<b>" not in str(fast["name"])


@pytest.mark.django_db
def test_an_admin_add_page_with_related_and_date_widgets_opens(admin_client):
    response = admin_client.get(reverse("admin:bids_bid_add"))
    assert response.status_code == 200
    assert b"related-widget-wrapper" in response.content
