"""Reading `kubectl get … -o json` output: the items of a List, a timestamp field, and the line an
item starts on, so an error can point at it (JSON keeps no line numbers of its own)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from engine.failures.timestamps import ISO_RE, parse_iso

from .errors import ObservedInputError


def items(source: str, text: str) -> list[dict[str, Any]]:
    """The objects of a `kind: List` (or one object on its own)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ObservedInputError(source, f"not JSON: {exc.msg}", line=exc.lineno) from exc
    if not isinstance(data, dict):
        raise ObservedInputError(source, "expected an object with `items`, as kubectl writes it")
    found = data.get("items", [data])
    if not isinstance(found, list) or not all(isinstance(i, dict) for i in found):
        raise ObservedInputError(source, "`items` must be a list of objects", field="items")
    return found


def line_of(text: str, needle: str, *, after: int = 0) -> tuple[int, int]:
    """The line `needle` is on (1 when absent) and where to search from for the next one."""
    at = text.find(needle, after)
    if at < 0:
        return 1, after
    return text.count("\n", 0, at) + 1, at + len(needle)


def dig(obj: Mapping[str, Any], path: str) -> Any:
    value: Any = obj
    for key in path.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def when(source: str, obj: Mapping[str, Any], paths: tuple[str, ...], *, line: int) -> datetime:
    """The first of `paths` that holds a timestamp; an error naming them all when none does."""
    for path in paths:
        value = dig(obj, path)
        if value in (None, ""):
            continue
        if not isinstance(value, str) or ISO_RE.search(value) is None:
            raise ObservedInputError(source, f"{value!r} is not a timestamp", line=line, field=path)
        parsed = parse_iso(value)
        if parsed is None:
            raise ObservedInputError(source, f"{value!r} is not a date", line=line, field=path)
        return parsed
    raise ObservedInputError(source, "no timestamp", line=line, field=" or ".join(paths))


def quantity(value: Any) -> int:
    """A Kubernetes GPU quantity (`"8"`, 8); anything else counts none."""
    text = str(value or "0").strip()
    return int(text) if text.isdigit() else 0
