"""Template filters over `engine.formatting`: `{% load formatting %}` then `{{ n|data_size }}`."""

from __future__ import annotations

from django import template

from engine import formatting

register = template.Library()

register.filter("duration", formatting.duration)
register.filter("countdown", formatting.countdown)
register.filter("data_size", formatting.data_size)
register.filter("data_size_exact", formatting.data_size_exact)
register.filter("bandwidth", formatting.bandwidth)
register.filter("link_rate", formatting.link_rate)
