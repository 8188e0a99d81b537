"""Keep a stored analysis within a size: cut its longest lists, and say what was cut.

A run of 131,072 ranks can list each one as missing or waiting; PostgreSQL stores a JSON value
of up to 255 MB, and a page that shows one is unusable long before that. What is cut is the
tail of each long list (the head is what the verdict and the timeline rest on); `truncated`
names each list with how many of how many items were kept.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

Path = tuple[str | int, ...]


def _size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":")))


def _lists(value: Any, path: Path = ()) -> Iterator[tuple[Path, list[Any]]]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _lists(inner, (*path, key))
    elif isinstance(value, list):
        if len(value) > 1:
            yield path, value
        for index, inner in enumerate(value):
            if isinstance(inner, dict | list):
                yield from _lists(inner, (*path, index))


def _set(doc: Any, path: Path, value: Any) -> None:
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


def fit_analysis(doc: dict[str, Any], *, max_bytes: int) -> dict[str, Any]:
    """`doc` itself when it fits; else a copy whose longest lists are halved until it does."""
    if _size(doc) <= max_bytes:
        return doc
    fitted: dict[str, Any] = json.loads(json.dumps(doc))
    original: dict[str, int] = {}
    while _size(fitted) > max_bytes:
        candidates = [(_size(items), path, items) for path, items in _lists(fitted)]
        if not candidates:
            break
        _, path, items = max(candidates, key=lambda c: c[0])
        name = ".".join(str(p) for p in path)
        original.setdefault(name, len(items))
        _set(fitted, path, items[: len(items) // 2])
    if _size(fitted) > max_bytes:  # no list left to cut: keep the verdict's plain fields
        fitted = {k: v for k, v in fitted.items() if not isinstance(v, dict | list)}
        original["*"] = 0
    fitted["truncated"] = {
        name: {"kept": _kept(fitted, name), "of": count} for name, count in original.items()
    }
    return fitted


def _kept(doc: dict[str, Any], name: str) -> int:
    value: Any = doc
    for part in name.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return 0
    return len(value) if isinstance(value, list) else 0
