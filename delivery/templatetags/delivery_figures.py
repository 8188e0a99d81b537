"""`{% figure fig "pct" %}`: a figure's value, its formula one click away."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import template

from engine.delivery.availability import Figure

register = template.Library()

FORMATS = {
    "num": lambda v: f"{v:,.2f}",
    "pct": lambda v: f"{v:.3f} %",
    "pct1": lambda v: f"{v.normalize():f} %",
    "usd": lambda v: f"${v:,.2f}",
    "usd4": lambda v: f"${v:,.4f}",
}


@register.inclusion_tag("delivery/_figure.html")
def figure(fig: Figure, kind: str = "num") -> dict[str, Any]:
    value = fig.value
    text = "–" if value is None else FORMATS[kind](Decimal(value))
    return {"figure": fig, "text": text}
