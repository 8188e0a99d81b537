"""The one rule for a written reason that must be at least one full sentence (an award against
the scores, an acceptance over a failing gate): long enough, and ending like a sentence."""

from __future__ import annotations

#: At least this many characters, ending with a full stop, a question or an exclamation mark.
MIN_SENTENCE = 20
_SENTENCE_ENDS = (".", "!", "?")


def is_full_sentence(text: str) -> bool:
    text = text.strip()
    return len(text) >= MIN_SENTENCE and text.endswith(_SENTENCE_ENDS)


def sentence_problem(text: str, *, ask: str) -> str | None:
    """None when `text` is a full sentence; else `ask` (what to write) followed by the rule."""
    if is_full_sentence(text):
        return None
    return (
        f"{ask}, in at least one full sentence "
        f"({MIN_SENTENCE} characters or more, ending with a full stop)."
    )
