"""A slot holds templates and renderers alike, in one order."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from django.utils.html import format_html

from core import panels


@pytest.fixture
def empty_slot(monkeypatch) -> str:
    monkeypatch.setitem(panels._registered, "provider_links", [])
    return "provider_links"


def _shout(context: dict[str, Any]) -> str:
    return format_html("<b>{}</b>", context["provider_name"])


def test_a_slot_prints_its_templates_and_renderers_in_their_order(empty_slot):
    panels.register_renderer(empty_slot, _shout, order=60)
    panels.register(empty_slot, "scorecards/_reservation_link.html", order=10)
    panels.register_renderer(empty_slot, _shout, order=60)  # twice changes nothing
    context = {
        "provider_name": "<i>Northwind</i>",
        "reservation": SimpleNamespace(bid=SimpleNamespace(provider_id=7)),
    }
    printed = [render(context) for render in panels.renderers_for(empty_slot)]
    assert printed == [
        'the provider\'s <a href="/providers/7/scorecard/">scorecard</a>',
        "<b>&lt;i&gt;Northwind&lt;/i&gt;</b>",
    ]


def test_a_slot_holding_a_renderer_cannot_be_included_as_templates(empty_slot):
    panels.register(empty_slot, "scorecards/_reservation_link.html")
    assert panels.templates_for(empty_slot) == ["scorecards/_reservation_link.html"]
    panels.register_renderer(empty_slot, _shout)
    with pytest.raises(TypeError, match="renderers_for"):
        panels.templates_for(empty_slot)
