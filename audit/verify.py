"""Walk the chain and name the first entry that does not hold. Plain Python over rows (dicts
with the hashed fields, `id` and `sha256`), so the command, the page and tests share it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from audit.chain import GENESIS, entry_sha256


@dataclass(frozen=True)
class Break:
    seq: int
    id: int | None
    problem: str

    def __str__(self) -> str:
        where = f"entry {self.seq}" + (f" (id {self.id})" if self.id is not None else "")
        return f"Chain broken at {where}: {self.problem}"


@dataclass(frozen=True)
class Result:
    count: int
    broken: Break | None = None

    @property
    def intact(self) -> bool:
        return self.broken is None


def verify_rows(
    rows: Iterable[Mapping[str, Any]], *, head_seq: int | None = None, head_sha256: str = ""
) -> Result:
    """`rows` in sequence order. `head_*` is what the chain head says the last entry is: a
    deleted tail leaves every remaining link intact, only the head notices."""
    prev_seq, prev_sha, count = 0, GENESIS, 0
    for row in rows:
        count += 1
        seq, pk = row["seq"], row.get("id")
        if seq != prev_seq + 1:
            missing = f"entry {prev_seq + 1} is missing" if seq > prev_seq + 1 else "out of order"
            return Result(count, Break(seq, pk, f"{missing} (after {prev_seq} comes {seq})"))
        if row["prev_sha256"] != prev_sha:
            return Result(count, Break(seq, pk, "its link does not match the previous entry"))
        if entry_sha256(row) != row["sha256"]:
            return Result(count, Break(seq, pk, "its contents do not match its SHA-256"))
        prev_seq, prev_sha = seq, row["sha256"]
    if head_seq is not None and (head_seq, head_sha256 or GENESIS) != (prev_seq, prev_sha):
        return Result(
            count,
            Break(
                prev_seq + 1,
                None,
                f"the chain head says the last entry is {head_seq}; the table ends at {prev_seq}",
            ),
        )
    return Result(count)
