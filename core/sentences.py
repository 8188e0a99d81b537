"""The one rule for a written reason that must be at least one full sentence (an award against
the scores, an acceptance over a failing gate): long enough, several real words, and ending like
a sentence. It cannot judge the reason, only refuse what is plainly not one: a single token, a
key held down, the same word over and over."""

from __future__ import annotations

import re

#: At least this many characters, ending with a full stop, a question or an exclamation mark.
MIN_SENTENCE = 20
#: At least this many words with a letter in them, of which at least `MIN_DISTINCT` differ.
MIN_WORDS = 4
MIN_DISTINCT = 3
_SENTENCE_ENDS = (".", "!", "?")
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
# The same letter four times in a row: no English word has it ("aaaa", "zzzzz").
_HELD_KEY = re.compile(r"([^\W\d_])\1{3,}", re.IGNORECASE)


def is_full_sentence(text: str) -> bool:
    text = text.strip()
    if len(text) < MIN_SENTENCE or not text.endswith(_SENTENCE_ENDS):
        return False
    if _HELD_KEY.search(text):
        return False
    words = [w.lower() for w in _WORD.findall(text)]
    return len(words) >= MIN_WORDS and len(set(words)) >= MIN_DISTINCT


def sentence_problem(text: str, *, ask: str) -> str | None:
    """None when `text` is a full sentence; else `ask` (what to write) followed by the rule."""
    if is_full_sentence(text):
        return None
    return (
        f"{ask}, in at least one full sentence ({MIN_WORDS} words or more and "
        f"{MIN_SENTENCE} characters or more, ending with a full stop)."
    )
