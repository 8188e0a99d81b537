"""Text checks on rendered pages."""

from __future__ import annotations

import re


def shows_number(text: str, number: str) -> bool:
    """Whether ``number`` (say "9.99") appears as a number of its own, trailing zeros allowed.

    A plain substring test is flaky on pages with audit timestamps: "14:12:19.991Z" holds "9.99".
    """
    pattern = rf"(?<![\d.]){re.escape(number)}0*(?![\d])"
    return re.search(pattern, text) is not None
