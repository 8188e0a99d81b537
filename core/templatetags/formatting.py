"""Template filters over `engine.formatting`: `{% load formatting %}` then `{{ n|data_size }}`."""

from __future__ import annotations

from typing import Any

from django import template

from engine import formatting

register = template.Library()

register.filter("duration", formatting.duration)
register.filter("countdown", formatting.countdown)
register.filter("data_size", formatting.data_size)
register.filter("data_size_exact", formatting.data_size_exact)
register.filter("bandwidth", formatting.bandwidth)
register.filter("link_rate", formatting.link_rate)


@register.filter
def usd(value: Any, places: int = 2) -> str:
    """`{{ amount|usd }}` -> '$1,234.50'; `{{ price|usd:4 }}` -> '$2.0018'."""
    return formatting.usd(value, places=int(places))


@register.filter
def percent(value: Any, places: int | None = None) -> str:
    """`{{ pct|percent:3 }}` -> '99.500 %' (a value already times 100)."""
    return formatting.percent(value, places=None if places is None else int(places))


@register.filter
def share(value: Any, places: int = 1) -> str:
    """`{{ 0.612|share }}` -> '61.2 %': a fraction of one as a percentage."""
    if not isinstance(value, int | float):
        return formatting.DASH
    return formatting.percent(value * 100, places=int(places))


@register.filter
def span(value: Any) -> str:
    """`{{ delta|span }}`: a timedelta as `duration` words ('15 min', '2 h')."""
    seconds = getattr(value, "total_seconds", None)
    return formatting.duration(int(seconds() // 60)) if seconds else formatting.DASH


@register.filter
def index(seq: Any, i: int) -> Any:
    """`series|index:n`: the n-th item (None past the end), to set parallel lists side by side."""
    try:
        return seq[i]
    except (IndexError, TypeError):
        return None
