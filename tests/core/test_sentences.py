"""The full-sentence rule refuses what is plainly not a sentence: one token, a held key, the same
word repeated; and it accepts short real reasons."""

from __future__ import annotations

import pytest

from core.sentences import is_full_sentence, sentence_problem


@pytest.mark.parametrize(
    "text",
    [
        "Aaaaaaaaaaaaaaaaaaaaaaaaaaaaa.",
        "Supercalifragilisticexpialidocious.",
        "asdf asdf asdf asdf asdf asdf.",
        "Cheaper cheaper cheaper cheaper.",
        "Yes, noooooo, fine, whatever ok.",
        "1234567890 1234567890 1234567890.",
        "Too short a reason.",
        "The rival can deliver two weeks earlier",
    ],
)
def test_what_is_not_a_sentence_is_refused(text: str) -> None:
    assert not is_full_sentence(text)
    problem = sentence_problem(text, ask="Say why")
    assert problem is not None and "4 words or more" in problem


@pytest.mark.parametrize(
    "text",
    [
        "The rival can deliver two weeks earlier.",
        "Site is closer to our data, so we pay less egress!",
        "Does the 99.9 % SLA not matter here?",
        "We need 1000 GPUs by March.",
    ],
)
def test_a_short_real_sentence_passes(text: str) -> None:
    assert is_full_sentence(text)
    assert sentence_problem(text, ask="Say why") is None
