"""What changed between two annex snapshots: compared as flat dotted paths, shown under the
annex's own section headings, with the labels and value formats the annex prints."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from annexes.document.labels import display, humanise, label, when
from bids.models import BidTerms, CapacityRequest

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
        return "" if self.old is _MISSING else self._shown(self.old)

    def new_text(self) -> str:
        return "" if self.new is _MISSING else self._shown(self.new)

    def _shown(self, value: Any) -> str:
        """As printed; where the print hides the change (two instants in the same minute),
        the stored value itself."""
        both = (self._text(self.old), self._text(self.new))
        if self.kind == "changed" and both[0] == both[1]:
            return "—" if value is None else str(value)
        return self._text(value)

    @property
    def section(self) -> str:
        """The annex section that prints this value ('Allocation and term')."""
        head = re.split(r"[.\[]", self.path, maxsplit=1)[0]
        return SECTIONS.get(head, humanise(head))

    @property
    def label(self) -> str:
        """The label the annex prints: a field's verbose name, else the path in words, list
        positions counted from 1 ('Nccl › item 2 › Collective')."""
        model, name = self._field()
        if model is not None:
            return label(model, name)
        head, _, rest = self.path.partition(".")
        if not rest:
            return SECTIONS.get(head, humanise(head))
        rest = re.sub(r"\[(\d+)\]", lambda m: f".item {int(m.group(1)) + 1}", rest)
        return humanise(rest)

    def _field(self) -> tuple[Any, str]:
        """(model, field) for the request's and the offer's own fields, else (None, "")."""
        for prefix, model in (("request.", CapacityRequest), ("bid_revision.terms.", BidTerms)):
            if self.path.startswith(prefix) and "." not in self.path[len(prefix) :]:
                return model, self.path[len(prefix) :]
        return None, ""

    def _text(self, value: Any) -> str:
        model, name = self._field()
        return display(model, name, value) if model is not None else when(value)


# Top-level snapshot keys → the annex section that prints them (annexes/document/present.py).
SECTIONS = {
    "request": "Allocation and term",
    "addenda": "Allocation and term",
    "provider": "The awarded offer",
    "bid_revision": "The awarded offer",
    "award_justification": "The awarded offer",
    "fixture": "Acceptance fixture",
    "terms": "Incident handoff terms",
    "questionnaire": "Incident responsibilities (questionnaire)",
    "acknowledgement": "Acknowledgement and exceptions",
    "acceptance": "Acceptance decision",
    "baseline": "Hand-over baseline",
    "bids": "Ranking",
    "weights": "Ranking",
    "scored_at": "Ranking",
    "matrix": "Side-by-side matrix",
    "sensitivity": "Sensitivity",
}


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


def in_annex_order(changes: list[Change]) -> list[Change]:
    """Section by section, as the annex prints them; within one, by path."""
    order = {title: i for i, title in enumerate(dict.fromkeys(SECTIONS.values()))}
    return sorted(changes, key=lambda c: (order.get(c.section, len(order)), _natural(c.path)))
