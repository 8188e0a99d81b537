"""Shared hypothesis strategies: any input either parses or raises the parser's own error.

A parse that succeeds must also hold only finite numbers: `inf` or `nan` taken from a log would
otherwise pass a threshold check ("inf GB/s >= 368"). PARSER_FUZZ_EXAMPLES raises the example
count for a longer local hunt.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

DATA = Path(__file__).resolve().parents[3] / "data" / "evidence"
FUZZ = settings(
    max_examples=int(os.environ.get("PARSER_FUZZ_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
# What a broken tool, a bad copy or a hand edit puts where a number belongs.
BAD_NUMBERS = (
    "nan",
    "NaN",
    "-nan",
    "inf",
    "-inf",
    "Infinity",
    "1e400",
    "-1e400",
    "1e-400",
    "",
    "N/A",
    "[N/A]",
    "9" * 40,
    "-" + "9" * 40,
    "9" * 400,  # past what float() can hold
    "9" * 5000,  # past Python's int() digit limit
    "²",
    "٣",
    "0x1f",
    "1_000",
    "fast",
)
_NUMBER_RE = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")


def samples(kind: str) -> list[bytes]:
    return [p.read_bytes() for p in sorted((DATA / kind).iterdir())]


def non_finite(value: Any, path: str = "result") -> str | None:
    """The path of the first NaN/inf float inside a parse result, or None."""
    if isinstance(value, float):
        return None if math.isfinite(value) else path
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            found = non_finite(getattr(value, f.name), f"{path}.{f.name}")
            if found:
                return found
    elif isinstance(value, dict):
        for key, item in value.items():
            found = non_finite(item, f"{path}[{key!r}]")
            if found:
                return found
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = non_finite(item, f"{path}[{i}]")
            if found:
                return found
    return None


def must_parse_or_raise(parse: Callable[[Any], object], error: type[Exception], data: Any) -> None:
    try:
        result = parse(data)
    except error:
        return
    bad = non_finite(result)
    assert bad is None, f"parsed a non-finite number into {bad}"


def substitute_numbers(data: bytes, pick: int, token: str, whole_line: bool) -> bytes:
    """Replace the pick-th numeric token (or every number on its line) with `token`."""
    matches = list(_NUMBER_RE.finditer(data))
    if not matches:
        return data
    target = matches[pick % len(matches)]
    new = token.encode()
    if not whole_line:
        return data[: target.start()] + new + data[target.end() :]
    start = data.rfind(b"\n", 0, target.start()) + 1
    end = data.find(b"\n", target.end())
    end = len(data) if end == -1 else end
    return data[:start] + _NUMBER_RE.sub(lambda _: new, data[start:end]) + data[end:]


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

    @FUZZ
    @given(
        st.sampled_from(files),
        st.integers(min_value=0),
        st.sampled_from(BAD_NUMBERS),
        st.booleans(),
    )
    def test_bad_number_in_a_valid_file(data: bytes, pick: int, token: str, line: bool) -> None:
        must_parse_or_raise(parse, error, substitute_numbers(data, pick, token, line))

    return (
        test_arbitrary_text,
        test_truncated_valid_file,
        test_random_bytes,
        test_spliced_bytes,
        test_bad_number_in_a_valid_file,
    )
