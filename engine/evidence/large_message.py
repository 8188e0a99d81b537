"""Where bus bandwidth is judged: the large-message size and the lowest busbw at or above it.

The burn-in gate, the hand-over baseline, the burn-in charts and the recovery comparison all read
"the lowest large-message bus bandwidth" of an nccl-tests run; they ask this module, so a run
reads the same figure at hand-over and after an incident. Plain Python with no imports from the
parsers, so `engine.failures` can use it on stored JSON as the checks use it on parse results.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

# Busbw plateaus from about 1 GiB on; below it latency, not the fabric, sets the figure.
LARGE_MESSAGE_BYTES = 1 << 30


def large_message_bytes(values: Mapping[str, Any] | None) -> int:
    """The message size busbw is judged from: `large_message_bytes` of a thresholds table or a
    baseline snapshot, the house default where it is unset or zero."""
    return int((values or {}).get("large_message_bytes") or LARGE_MESSAGE_BYTES)


def row_busbw(out_of_place: float | None, in_place: float | None) -> float | None:
    """A row's busbw: the out-of-place figure, the in-place one only where that is missing."""
    return out_of_place if out_of_place is not None else in_place


def stored_row_busbw(row: Mapping[str, Any]) -> float | None:
    """`row_busbw` of a row in stored parse JSON (`parsers.to_json`)."""
    sides = [(row.get(side) or {}).get("busbw") for side in ("out_of_place", "in_place")]
    out_of_place, in_place = (float(v) if isinstance(v, int | float) else None for v in sides)
    return row_busbw(out_of_place, in_place)


@dataclass(frozen=True, slots=True)
class LowestBusbw:
    busbw: float
    index: int  # position of the lowest row among the rows given, for its size and line


def lowest_large_busbw(
    rows: Iterable[tuple[int, float | None]], *, large_bytes: int
) -> LowestBusbw | None:
    """The lowest busbw among (size, busbw) rows at or above `large_bytes`; None when no large row
    has a figure. The first row wins a tie.

    A 0 GB/s row counts: nccl-tests prints it when a link is dead or a transfer stalled, which is
    exactly what the gate and a recovery comparison must see. Skipping it would let a baseline
    record the healthy sizes' figure while recovery, reading the same file, saw the failure.
    """
    lowest: LowestBusbw | None = None
    for index, (size, busbw) in enumerate(rows):
        if size >= large_bytes and busbw is not None and (lowest is None or busbw < lowest.busbw):
            lowest = LowestBusbw(busbw=busbw, index=index)
    return lowest


def stored_lowest_large_busbw(run: Mapping[str, Any], *, large_bytes: int) -> float | None:
    """`lowest_large_busbw` of one run in stored parse JSON."""
    rows = [(int(row.get("size") or 0), stored_row_busbw(row)) for row in run.get("rows") or []]
    found = lowest_large_busbw(rows, large_bytes=large_bytes)
    return None if found is None else found.busbw
