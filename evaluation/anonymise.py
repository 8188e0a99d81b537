"""The anonymised comparison: labels that stay with a bid for the request's lifetime, and no
text that could name its provider.

Labels follow the order bids were first submitted, never the ranking: "Bid A" is the same bid
whatever the weights, later revisions or withdrawals. Every text a provider wrote itself (site,
billing and support terms, what fails a node, notes, free-text answers and comments) is hidden
from the matrix, and scrubbed from whatever else the comparison says (rationales, reasons,
explanations), so the page, the API and the exports, which all read one build, identify nobody.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from bids.models import BidRevision, CapacityRequest
from evaluation.matrix import Cell
from questionnaire.answer_types import TEXT
from questionnaire.snapshot import specs_of

if TYPE_CHECKING:
    from evaluation.matrix import Comparison

HIDDEN = "hidden while anonymised"
# Rows that show a provider's own words: hidden whole (the numbers stay).
IDENTIFYING_ROWS = frozenset({"site", "billing", "credits", "node_fail"})
# Shorter texts ("EU", "24x7") would blank ordinary words elsewhere, and identify nobody.
MIN_SCRUBBED = 4

# The query parameter that asks the comparison's pages for the anonymised labels.
LABELS, ANONYMOUS = "labels", "anonymous"


def labels_query(*, anonymised: bool, **more: str) -> str:
    """The query string that keeps the labelling across a link or redirect, `more` after it:
    '?labels=anonymous', '?labels=anonymous&rate=all', '?rate=all', or ''."""
    params = {LABELS: ANONYMOUS} if anonymised else {}
    return f"?{urlencode(params | more)}" if params or more else ""


def anonymous_name(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return f"Bid {letters}"


def anonymous_labels(*, capacity_request: CapacityRequest) -> dict[int, str]:
    """'Bid A', 'Bid B'… per bid id, by first submission (one query)."""
    first = (
        BidRevision.objects.filter(bid__request=capacity_request, number=1)
        .order_by("submitted_at", "pk")
        .values_list("bid_id", flat=True)
    )
    return {bid_id: anonymous_name(index) for index, bid_id in enumerate(first)}


def _free_text(snapshot: Mapping[str, Any] | None) -> Iterator[str]:
    """The questionnaire's free-text answers and the comments beside yes/no answers."""
    if not snapshot:
        return
    answers = snapshot.get("answers", {})
    text_keys = {spec.key for spec in specs_of(snapshot) if spec.answer_type == TEXT}
    for key, value in answers.items():
        if key in text_keys and isinstance(value, str):
            yield value
        elif isinstance(value, dict) and isinstance(value.get("comment"), str):
            yield value["comment"]


def identifying_texts(revision: BidRevision) -> list[str]:
    """What in a revision can name its provider, longest first."""
    texts = [
        revision.bid.provider.name,
        revision.site,
        revision.billing_terms,
        revision.sla_credits,
        revision.node_fail_criteria,
        revision.notes,
        *_free_text(revision.questionnaire),
    ]
    kept = {t.strip() for t in texts if t and len(t.strip()) >= MIN_SCRUBBED}
    return sorted(kept, key=len, reverse=True)


def scrubber(texts: Iterable[str]) -> re.Pattern[str] | None:
    words = [re.escape(t) for t in texts]
    return re.compile("|".join(words), re.IGNORECASE) if words else None


def _scrub(pattern: re.Pattern[str] | None, text: str) -> str:
    return pattern.sub(f"[{HIDDEN}]", text) if pattern is not None else text


def _cell(cell: Cell, pattern: re.Pattern[str] | None) -> None:
    cell.display = _scrub(pattern, cell.display)
    if isinstance(cell.value, str):
        cell.value = _scrub(pattern, cell.value)
    cell.explain = [{k: _scrub(pattern, v) for k, v in step.items()} for step in cell.explain]


def hide_identifying(view: Comparison) -> None:
    """Hide the provider's own words in a comparison being built, in place."""

    pattern = scrubber(
        sorted(
            {t for col in view.columns for t in identifying_texts(col.revision)},
            key=len,
            reverse=True,
        )
    )
    for group in view.groups:
        for row in group.rows:
            if row.key in IDENTIFYING_ROWS:
                row.cells = [Cell(HIDDEN, None, css=cell.css) for cell in row.cells]
                continue
            for cell in row.cells:
                _cell(cell, pattern)
    for col in view.columns:
        col.reasons = [_scrub(pattern, reason) for reason in col.reasons]
