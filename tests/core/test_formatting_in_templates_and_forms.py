"""The engine's formatting rules as pages and forms meet them: the template filters, and a
printed duration that a form reads back."""

from __future__ import annotations

import pytest
from django.template import Context, Template

from engine import formatting
from questionnaire.answer_types import parse_duration


@pytest.mark.parametrize("minutes", [0, 5, 60, 90, 1440, 2870, 2880, 4380, 10_080])
def test_a_printed_duration_reads_back_as_the_same_minutes(minutes: int) -> None:
    # Forms show the text as an input's value: it must parse back unchanged.
    assert parse_duration(formatting.duration(minutes)) == minutes


def test_the_template_filters_are_the_same_functions() -> None:
    html = Template(
        "{% load formatting %}"
        "{{ m|duration }}|{{ b|data_size }}|{{ g|bandwidth }}|{{ r|link_rate }}"
    ).render(Context({"m": 2880, "b": 10 << 20, "g": 46.5, "r": 400}))
    assert html == "2 d|10 MiB|46.5 GB/s|400 Gb/s"
