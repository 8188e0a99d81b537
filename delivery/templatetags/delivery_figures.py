"""`{% figure fig "pct" %}`: a figure's value, its formula one click away."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import template

from core.templatetags.formatting import index
from engine.delivery.availability import Figure
from engine.formatting import fixed, percent, usd

register = template.Library()

# The same rounding as the formula beside each value (engine.formatting: half up).
FORMATS = {
    "num": fixed,
    "pct": lambda v: percent(v, places=3),
    "pct1": percent,
    "usd": usd,
    "usd4": lambda v: usd(v, places=4),
}


@register.inclusion_tag("delivery/_figure.html")
def figure(fig: Figure, kind: str = "num") -> dict[str, Any]:
    value = fig.value
    text = "–" if value is None else FORMATS[kind](Decimal(value))
    return {"figure": fig, "text": text}


register.filter("index", index)
