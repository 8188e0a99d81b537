"""Shared hypothesis strategies: any input either parses or raises the parser's own error."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

DATA = Path(__file__).resolve().parents[2] / "data" / "evidence"
FUZZ = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def samples(kind: str) -> list[bytes]:
    return [p.read_bytes() for p in sorted((DATA / kind).iterdir())]


def must_parse_or_raise(parse: Callable[[Any], object], error: type[Exception], data: Any) -> None:
    with contextlib.suppress(error):
        parse(data)


def fuzz_tests(kind: str, parse: Callable[[Any], object], error: type[Exception]) -> tuple:
    files = samples(kind)

    @FUZZ
    @given(st.text(max_size=2000))
    def test_arbitrary_text(text: str) -> None:
        must_parse_or_raise(parse, error, text)

    @FUZZ
    @given(st.sampled_from(files), st.floats(min_value=0.0, max_value=1.0))
    def test_truncated_valid_file(data: bytes, where: float) -> None:
        must_parse_or_raise(parse, error, data[: int(len(data) * where)])

    @FUZZ
    @given(st.binary(max_size=2000))
    def test_random_bytes(data: bytes) -> None:
        must_parse_or_raise(parse, error, data)

    @FUZZ
    @given(st.sampled_from(files), st.integers(min_value=0), st.binary(min_size=1, max_size=8))
    def test_spliced_bytes(data: bytes, at: int, junk: bytes) -> None:
        pos = at % (len(data) + 1)
        must_parse_or_raise(parse, error, data[:pos] + junk + data[pos:])

    return test_arbitrary_text, test_truncated_valid_file, test_random_bytes, test_spliced_bytes
