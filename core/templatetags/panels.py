"""`{% slot_templates "bids.request_detail" as panels %}`: what higher apps registered there."""

from __future__ import annotations

from django import template

from core.panels import templates_for

register = template.Library()


@register.simple_tag
def slot_templates(slot: str) -> list[str]:
    return templates_for(slot)
