"""Reading a stored analysis (`Analysis.to_json()`), whichever version of the code wrote it.

`read_analysis` gives every document the current shape: the owner in the handoff terms' words,
and the keys added since (attempts, candidates) with their empty values. `first_ever` puts the
first attempt's failure at the head of a restarted job's analysis, the way `analyse(...,
first_ever=True)` does, from the stored document alone.
"""

from __future__ import annotations

from typing import Any

from .attempts import HEADLINE_KEYS
from .owner import contract_owner

FIRST_CHOICES = ("ending", "ever")
_DEFAULTS: dict[str, Any] = {
    "candidates": [], "attempt": None, "restarts": 0, "attempts": [], "first": "ending",
}  # fmt: skip


def read_analysis(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of `doc` in the current shape (old owners mapped, new keys present)."""
    out = {**_DEFAULTS, **doc}
    out["suggested_owner"] = contract_owner(out.get("suggested_owner"))
    out["attempts"] = [
        {**a, "suggested_owner": contract_owner(a.get("suggested_owner"))}
        for a in out["attempts"] or []
        if isinstance(a, dict)
    ]
    return out


def first_ever(doc: dict[str, Any]) -> dict[str, Any]:
    """The document with the earliest attempt's failure at its head and the one that ended the
    job listed with the others. Unchanged (but for `first`) when there was no restart."""
    out = read_analysis(doc)
    head = out.get("attempt")
    earlier = [a for a in out["attempts"] if isinstance(a.get("attempt"), int)
               and (head is None or a["attempt"] < head)]  # fmt: skip
    if earlier:
        pick = min(earlier, key=lambda a: a["attempt"])
        ending = {k: out.get(k) for k in HEADLINE_KEYS}
        others = [a for a in out["attempts"] if a is not pick] + [ending]
        out.update({k: pick.get(k) for k in HEADLINE_KEYS})
        out["attempts"] = sorted(others, key=lambda a: a.get("attempt") or 0)
    out["first"] = "ever"
    return out


def view(doc: dict[str, Any], *, first: str = "ending") -> dict[str, Any]:
    """The stored analysis as asked for: `first` is "ending" (the failure that ended the job,
    as stored) or "ever" (the first failure of the run)."""
    return first_ever(doc) if first == "ever" else read_analysis(doc)
