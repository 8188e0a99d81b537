"""Column widths for the annex's tables, decided here rather than by the PDF engine.

WeasyPrint's automatic table layout measures every cell at every possible line break to find
its narrowest and widest width; on a long annex that measuring is a large share of the render.
With `table-layout: fixed` it measures nothing, so the presenter sizes the columns from the text
it already holds, the way automatic layout would: every column first gets room for its longest
word, then the rest of the line goes to the columns whose text would otherwise wrap, in
proportion to how much more room they want. Widths are estimated from DejaVu Sans's glyph
advances, which is close enough to decide where a line wraps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

FONT_PT = 9.5
# A4 (210 mm) less the page's side margins (2 x 18 mm), in points.
LINE_PT = (210 - 36) / 25.4 * 72
# Left and right cell padding (2 x 1.6 mm), in points.
PADDING_PT = 3.2 / 25.4 * 72
# Beyond this a column's text wraps anyway; it gets no more room for being longer.
PROSE_CAP_PT = 260.0
# A column whose longest text is at most this wide is short: it is served before prose.
SHORT_PT = 110.0
# The glyph table below is an estimate; a little room to spare keeps a short word unbroken.
SAFETY = 1.08
# How much wider DejaVu Sans Bold sets the same word.
BOLD = 1.12

# Advance widths of DejaVu Sans in em, by kind of character.
_NARROW = set("ijlrtf.,:;'!|()[]{}-/ ")
_WIDE = set("mwMW@%")


def _advance(char: str) -> float:
    if char.isdigit():
        return 0.636
    if char in _NARROW:
        return 0.34
    if char in _WIDE:
        return 0.92
    if char.isupper():
        return 0.72
    return 0.6


def text_width(text: str) -> float:
    """The printed width of `text` in points, at the annex's body size."""
    return sum(_advance(c) for c in text) * FONT_PT


def _longest_word(text: str) -> float:
    return max((text_width(word) for word in text.split()), default=0.0)


def column_widths(head: Sequence[Any], rows: Sequence[Sequence[Any]]) -> list[float]:
    """Percentages of the table width, one per column of `head`, summing to 100."""
    count = len(head)
    if count == 0:
        return []
    # A heading wraps at its spaces without complaint: it asks only for its longest word, set
    # in bold, which runs wider than the body text.
    narrowest = [_longest_word(str(h)) * BOLD for h in head]
    widest = list(narrowest)
    for row in rows:
        for i, cell in enumerate(row[:count]):
            text = str(cell)
            narrowest[i] = max(narrowest[i], _longest_word(text))
            widest[i] = max(widest[i], text_width(text))
    room = LINE_PT - PADDING_PT * count
    low = [min(n * SAFETY, PROSE_CAP_PT) for n in narrowest]
    high = [max(lo, min(w * SAFETY, PROSE_CAP_PT)) for lo, w in zip(low, widest, strict=True)]
    # A heading's longest word, whole: the PDF never breaks a heading inside a word.
    heading = [min(_longest_word(str(h)) * BOLD * SAFETY, PROSE_CAP_PT) for h in head]
    if sum(low) >= room > sum(heading):
        # Even the longest words do not fit: the body's words give way (a checksum or a file
        # name wraps anywhere), each column keeping room for its heading's longest word.
        excess = [lo - hd for lo, hd in zip(low, heading, strict=True)]
        scale = (room - sum(heading)) / sum(excess)
        widths = [hd + ex * scale for hd, ex in zip(heading, excess, strict=True)]
    elif sum(low) >= room:  # not even the headings fit: shrink them all alike
        widths = [lo * room / sum(low) for lo in low]
    else:
        # Short columns (figures, names, owners) first get their whole text on one line; then
        # the columns of prose share what is left in proportion to how much more they want.
        widths = list(low)
        short = [i for i in range(count) if high[i] <= SHORT_PT]
        for group in (short, [i for i in range(count) if i not in short]):
            spare = room - sum(widths)
            wants = {i: high[i] - widths[i] for i in group if high[i] > widths[i]}
            if spare <= 0 or not wants:
                continue
            scale = min(1.0, spare / sum(wants.values()))
            for i, want in wants.items():
                widths[i] += want * scale
        spare = room - sum(widths)
        if spare > 0:  # everything fits on one line: share out what is left evenly
            widths = [w + spare / count for w in widths]
    return _tenths_summing_to_100([100 * (w + PADDING_PT) / LINE_PT for w in widths])


def _tenths_summing_to_100(raw: Sequence[float]) -> list[float]:
    """Round to tenths of a percent by largest remainder: the shares sum to exactly 100 and
    none goes negative (putting the rounding error on the last column once printed
    `width: -0.1%`, which WeasyPrint warns about)."""
    scale = 1000 / sum(raw) if sum(raw) > 0 else 0.0
    exact = [max(0.0, r * scale) for r in raw]
    tenths = [int(e) for e in exact]
    by_remainder = sorted(range(len(raw)), key=lambda i: exact[i] - tenths[i], reverse=True)
    for i in by_remainder[: 1000 - sum(tenths)]:
        tenths[i] += 1
    return [t / 10 for t in tenths]
