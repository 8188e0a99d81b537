"""What changed between two annex snapshots, as flat dotted paths."""

from __future__ import annotations

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
    for path in sorted(set(before) | set(after)):
        if path.startswith(ignore):
            continue
        a, b = before.get(path, _MISSING), after.get(path, _MISSING)
        if a != b:
            changes.append(Change(path=path, old=a, new=b))
    return changes
