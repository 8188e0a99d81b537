"""Slurm's compressed host and task lists: `gpu[01-04,07]`, `gpu-node-[a-d]`, `8(x4),2`, `8,10-15`.

Slurm writes node lists with numeric ranges that keep their zero padding; some sites name nodes
by letter and print `gpu-node-[a-d]` the same way. Several bracket groups multiply
(`rack[1-2]-gpu[1-2]`). Lists longer than `MAX_HOSTS` are refused rather than expanded.
"""

from __future__ import annotations

import re

MAX_HOSTS = 65_536


def expand_nodelist(text: str) -> list[str]:
    """`gpu[01-02],cpu-a` → ['gpu01', 'gpu02', 'cpu-a']; [] for an empty or malformed list."""
    out: list[str] = []
    for item in _top_level(text.strip()):
        hosts = _expand_one(item)
        if hosts is None or len(out) + len(hosts) > MAX_HOSTS:
            return []
        out.extend(hosts)
    return out


def _top_level(text: str) -> list[str]:
    """Split on the commas outside brackets."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [i for i in items if i]


_GROUP = re.compile(r"\[([^\]]*)\]")


def _expand_one(item: str) -> list[str] | None:
    m = _GROUP.search(item)
    if m is None:
        return None if "[" in item or "]" in item else [item]
    head, tail = item[: m.start()], item[m.end() :]
    rests = _expand_one(tail)
    values = _range_values(m.group(1))
    if rests is None or values is None or len(values) * len(rests) > MAX_HOSTS:
        return None
    return [f"{head}{v}{r}" for v in values for r in rests]


def _range_values(spec: str) -> list[str] | None:
    out: list[str] = []
    for part in spec.split(","):
        lo, _, hi = part.strip().partition("-")
        if not hi:
            out.append(lo)
        elif lo.isdigit() and hi.isdigit():
            if int(hi) < int(lo) or int(hi) - int(lo) > MAX_HOSTS:
                return None
            width = len(lo)
            out.extend(str(n).zfill(width) for n in range(int(lo), int(hi) + 1))
        elif len(lo) == len(hi) == 1 and lo.isalpha() and hi.isalpha() and lo <= hi:
            out.extend(chr(c) for c in range(ord(lo), ord(hi) + 1))
        else:
            return None
    return out


def expand_tasks(text: str) -> list[int]:
    """srun's task list `8,10-15` → [8, 10, 11, 12, 13, 14, 15]."""
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.strip().partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            return []
        top = int(hi) if hi else int(lo)
        if top - int(lo) > MAX_HOSTS:
            return []
        out.extend(range(int(lo), top + 1))
    return out


def tasks_per_node(text: str) -> list[int]:
    """`SLURM_TASKS_PER_NODE` `8(x3),2` → [8, 8, 8, 2]."""
    out: list[int] = []
    for part in text.split(","):
        m = re.fullmatch(r"(\d+)(?:\(x(\d+)\))?", part.strip())
        if m is None:
            return []
        repeat = int(m.group(2) or 1)
        if len(out) + repeat > MAX_HOSTS:
            return []
        out.extend([int(m.group(1))] * repeat)
    return out


def block_layout(nodes: list[str], counts: list[int]) -> dict[int, str]:
    """Task → node under Slurm's default block distribution: the first node's tasks first."""
    out: dict[int, str] = {}
    task = 0
    for node, count in zip(nodes, counts, strict=False):
        for _ in range(count):
            out[task] = node
            task += 1
    return out
