"""What changed between two annex snapshots, as flat dotted paths."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_MISSING = object()


@dataclass(frozen=True)
class Change:
    path: str
    old: Any
    new: Any

    @property
    def kind(self) -> str:
        if self.old is _MISSING:
            return "added"
        if self.new is _MISSING:
            return "removed"
        return "changed"

    def old_text(self) -> str:
        return "" if self.old is _MISSING else _text(self.old)

    def new_text(self) -> str:
        return "" if self.new is _MISSING else _text(self.new)


def _text(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _flatten(value: Any, prefix: str, out: dict[str, Any]) -> None:
    if isinstance(value, dict) and value:
        for key in value:
            _flatten(value[key], f"{prefix}.{key}" if prefix else str(key), out)
    elif isinstance(value, list) and value and any(isinstance(v, dict | list) for v in value):
        for index, item in enumerate(value):
            _flatten(item, f"{prefix}[{index}]", out)
    else:
        out[prefix] = value


def snapshot_diff(
    old: dict[str, Any], new: dict[str, Any], *, ignore: tuple[str, ...] = ()
) -> list[Change]:
    """Every leaf that differs; paths under `ignore` prefixes (e.g. generation time) are skipped."""
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    _flatten(old, "", before)
    _flatten(new, "", after)
    changes = []
    for path in sorted(set(before) | set(after), key=_natural):
        if path.startswith(ignore):
            continue
        a, b = before.get(path, _MISSING), after.get(path, _MISSING)
        if a == b:
            continue
        # An empty part that gained content (no acceptance yet → an acceptance) shows as the
        # leaves it gained, not also as the empty value 'removed' (and the reverse).
        if b is _MISSING and _is_empty(a) and _has_children(path, after):
            continue
        if a is _MISSING and _is_empty(b) and _has_children(path, before):
            continue
        changes.append(Change(path=path, old=a, new=b))
    return changes


def _natural(path: str) -> str:
    """Sort busbw_by_size[2] before busbw_by_size[10]."""
    return re.sub(r"\[(\d+)\]", lambda m: f"[{int(m.group(1)):09d}]", path)


def _is_empty(value: Any) -> bool:
    return value is None or value == {} or value == [] or value == ""


def _has_children(path: str, leaves: dict[str, Any]) -> bool:
    return any(p.startswith((f"{path}.", f"{path}[")) for p in leaves)
