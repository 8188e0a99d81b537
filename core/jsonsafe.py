"""JSON from users, read so that every way it can go wrong is a sentence, never a 500.

Python's reader recurses once per level (40 KB of `[[[[` is a RecursionError), refuses integers
of more than 4,300 digits with a plain ValueError, and accepts nesting a few hundred levels
deep that later code (validation, copying, the database's JSON) may not survive. No document
here needs more than a few levels, so anything past MAX_DEPTH is refused when it is read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

MAX_DEPTH = 64


class JsonProblem(ValueError):
    """What is wrong with the text, worded for the person who sent it (with the line where the
    reader knows it)."""


def depth(value: Any) -> int:
    """How deeply lists and objects nest (a scalar: 0), without recursing."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Iterable[Any] = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest


def check_depth(value: Any, *, max_depth: int = MAX_DEPTH) -> None:
    levels = depth(value)
    if levels > max_depth:
        raise JsonProblem(f"nested {levels} levels deep; at most {max_depth} are read here")


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonProblem(f"line {exc.lineno}: not valid JSON ({exc.msg.lower()})") from None
    except RecursionError:
        raise JsonProblem(f"nested too deeply; at most {max_depth} levels are read here") from None
    except ValueError as exc:  # an integer past Python's 4,300-digit limit
        raise JsonProblem(f"a number is too long to read ({exc})") from None
    check_depth(value, max_depth=max_depth)
    return value
