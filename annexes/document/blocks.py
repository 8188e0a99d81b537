"""What every annex document is made of: the template's block shapes and the confidentiality
lines its margins print. The presenters (contract, comparison, statement, baseline) share them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

Block = dict[str, Any]
CONFIDENTIAL_BOTH = "Confidential: buyer and provider"
CONFIDENTIAL_BUYER = "Confidential: buyer only — never shared with providers"


def kv(rows: Iterable[tuple[str, Any]], heading: str = "") -> Block:
    """A two-column table of labels and values."""
    return {"type": "kv", "heading": heading, "rows": [(k, v) for k, v in rows]}
