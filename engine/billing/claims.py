"""What each node's GPUs are already billed for, so that the same node-time is allowed once.

A node's claims are disjoint segments of time, each with how many of its GPUs earlier lines
billed over it. Lines come in time order per node almost always: a line that starts where the
node's last claim ends is appended (and merged with it when the GPU count is the same), so a
year of contiguous lines keeps a handful of segments per node. A line reaching back into claimed
time is granted only the GPUs still free there.
"""

from __future__ import annotations

from bisect import bisect_right


class Timeline:
    """One node's claimed segments in time order: [starts[i], ends[i]) with used[i] GPUs billed,
    first billed by line lines[i]."""

    __slots__ = ("ends", "last_end", "last_used", "lines", "starts", "used")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.used: list[int] = []
        self.lines: list[int] = []
        self.last_end = -(1 << 62)  # ends[-1], kept apart: the usual line reads only this
        self.last_used = 0

    def after(self, start: int, end: int, gpus: int, line: int) -> bool:
        """Claims [start, end) when it starts at or after every claim so far (the usual line,
        in time order); False, claiming nothing, when it reaches back into claimed time."""
        if start != self.last_end or gpus != self.last_used:
            if start < self.last_end:
                return False
            self.starts.append(start)
            self.ends.append(end)
            self.used.append(gpus)
            self.lines.append(line)
            self.last_used = gpus
        else:
            self.ends[-1] = end
        self.last_end = end
        return True

    def claim(self, start: int, end: int, gpus: int, capacity: int, line: int) -> tuple[int, int]:
        """Claims `gpus` of the node's `capacity` GPUs over [start, end). Returns the GPU-seconds
        granted and the first earlier line that stood in the way (0: none did)."""
        if end <= start or gpus <= 0:
            return 0, 0
        fits = min(gpus, capacity)
        if self.after(start, end, fits, line):
            return fits * (end - start), 0
        granted, blocker = self._insert(start, end, gpus, capacity, line)
        self.last_end, self.last_used = self.ends[-1], self.used[-1]
        return granted, blocker

    def _insert(self, start: int, end: int, gpus: int, capacity: int, line: int) -> tuple[int, int]:
        starts, ends, used, lines = self.starts, self.ends, self.used, self.lines
        first = j = bisect_right(ends, start)  # the first segment ending after `start`
        pieces: list[tuple[int, int, int, int]] = []
        cursor, granted, blocker = start, 0, 0
        fresh = min(gpus, capacity)
        while j < len(starts) and starts[j] < end:
            s, e, u, by = starts[j], ends[j], used[j], lines[j]
            if s < start:
                pieces.append((s, start, u, by))
            if cursor < s:
                pieces.append((cursor, s, fresh, line))
                granted += fresh * (s - cursor)
            lo, hi = max(s, start), min(e, end)
            more = min(gpus, max(capacity - u, 0))
            if more < gpus and not blocker:
                blocker = by
            granted += more * (hi - lo)
            pieces.append((lo, hi, u + more, by))
            if e > end:
                pieces.append((end, e, u, by))
            cursor, j = hi, j + 1
        if cursor < end:
            pieces.append((cursor, end, fresh, line))
            granted += fresh * (end - cursor)
        self._splice(first, j, _merged(pieces))
        return granted, blocker

    def _splice(self, first: int, j: int, merged: list[tuple[int, int, int, int]]) -> None:
        """Segments [first, j) become `merged`, joined with a neighbour that meets it with the
        same GPUs billed: lines arriving in reverse order keep one segment, not one each."""
        if not merged:
            return  # nothing was billed over the range, nor is now
        starts, ends, used, lines = self.starts, self.ends, self.used, self.lines
        head, tail = merged[0], merged[-1]
        if first and ends[first - 1] == head[0] and used[first - 1] == head[2]:
            first -= 1
            merged[0] = (starts[first], head[1], head[2], lines[first])
        if j < len(starts) and starts[j] == tail[1] and used[j] == tail[2]:
            merged[-1] = (merged[-1][0], ends[j], tail[2], merged[-1][3])
            j += 1
        starts[first:j] = [p[0] for p in merged]
        ends[first:j] = [p[1] for p in merged]
        used[first:j] = [p[2] for p in merged]
        lines[first:j] = [p[3] for p in merged]


def _merged(pieces: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Adjacent pieces with the same GPUs billed as one: duplicate lines do not fragment a node."""
    out: list[tuple[int, int, int, int]] = []
    for piece in pieces:
        if piece[1] <= piece[0] or piece[2] <= 0:
            continue
        if out and out[-1][1] == piece[0] and out[-1][2] == piece[2]:
            out[-1] = (out[-1][0], piece[1], piece[2], out[-1][3])
        else:
            out.append(piece)
    return out
