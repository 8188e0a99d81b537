"""Column widths the presenter hands to WeasyPrint's fixed table layout."""

from __future__ import annotations

from annexes.document.columns import BOLD, LINE_PT, PADDING_PT, column_widths, text_width


def _points(share: float) -> float:
    return share / 100 * LINE_PT - PADDING_PT


def test_short_figures_keep_their_line_and_the_shares_fill_the_table():
    head = ["Collective", "Agreed floor", "Whole allocation", "Lowest node (where)", "Median"]
    row = ["all_reduce_bf16", "350.0", "361.0", "361.0 (gpu-node-000)", "361.0"]
    widths = column_widths(head, [row])
    assert round(sum(widths), 1) == 100.0
    # Every cell fits on one line: nothing in a row of figures wraps.
    assert all(_points(w) >= text_width(cell) for w, cell in zip(widths, row, strict=True))


def test_prose_takes_the_room_left_once_every_word_fits():
    question = "Before declaring a node ready, do you rerun NCCL against the hand-over baseline?"
    widths = column_widths(["#", "Question", "Answer"], [[1, question, "Yes"]])
    assert widths[1] == max(widths)
    assert _points(widths[0]) >= text_width("1") and _points(widths[2]) >= text_width("Answer")


def test_a_word_too_long_for_any_share_still_gets_its_proportion():
    digest = "f" * 64
    widths = column_widths(["File", "SHA-256"], [["README.md", digest]])
    assert round(sum(widths), 1) == 100.0 and widths[1] > widths[0] > 0


def test_no_columns_no_widths():
    assert column_widths([], []) == []


def test_a_heading_word_is_never_broken_even_over_a_narrow_column():
    head = ["Bid", "Revision", "Rank", "Total (0-100)", "Disqualified because"]
    rows = [["Aurora", 2, 1, "94.0", "region us-west is not among the acceptable regions " * 2]]
    widths = column_widths(head, rows)
    for share, heading in zip(widths, head, strict=True):
        longest = max(heading.split(), key=text_width)
        assert _points(share) >= text_width(longest) * BOLD


def test_rounding_to_tenths_never_leaves_a_negative_width():
    """Six shares of 16.66 % round up to 100.2 %: putting the error on the last column printed
    `width: -0.2%`, which WeasyPrint warns about and ignores."""
    from annexes.document.columns import _tenths_summing_to_100

    shares = _tenths_summing_to_100([16.66] * 6 + [0.04])
    assert min(shares) >= 0
    assert sum(round(s * 10) for s in shares) == 1000
    assert all(s in (16.6, 16.7) for s in shares[:6])


def test_when_not_every_word_fits_the_headings_keep_theirs_whole():
    """A bills table whose file name and checksum are too long for the line: the body's words
    give way, never a heading's ("Allowe d", "Line s")."""
    head = ["File", "SHA-256", "Lines", "Billed", "Allowed", "Credits", "Net", "Differences"]
    row = ["northwind-usage-export-2026-q1-all-reservations-reconciled.csv", "8ebb59ded0cb…",
           "3", "$760.00", "$760.00", "$11,443.20", "$0.00", "none"]  # fmt: skip
    widths = column_widths(head, [row])
    assert round(sum(widths), 1) == 100.0
    for share, heading in zip(widths, head, strict=True):
        assert _points(share) >= text_width(heading) * BOLD
