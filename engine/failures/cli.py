"""Command-line front end shared by `manage.py analyse_failure` and tests (no Django here)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Protocol

from .analysis import Analysis, analyse
from .bundle import iter_paths, unreadable_reason
from .errors import MAX_WORLD_SIZE, FailureInputError, world_size_problem
from .model import Event
from .rankmap import parse_rank_map
from .record import InputsSeen


class Writer(Protocol):
    def write(self, text: str, /) -> object: ...


def _world_size(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of ranks") from None
    if problem := world_size_problem(value):
        raise argparse.ArgumentTypeError(problem)
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", help="bundle archives, folders or log/dump files")
    parser.add_argument("--rank-map", help="CSV (rank,node[,local_rank,pci_bus_id]) or JSON")
    parser.add_argument(
        "--world-size",
        type=_world_size,
        help=f"ranks the job was launched with (1 to {MAX_WORLD_SIZE:,})",
    )
    parser.add_argument("--year", type=int, help="year for timestamps that omit it (syslog, glog)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--first-ever",
        action="store_true",
        help="for a job torchrun restarted: head with the first failure of the run, not the "
        "one that ended the job",
    )


def run(
    paths: list[str],
    *,
    rank_map: str | None,
    world_size: int | None,
    year: int | None,
    as_json: bool,
    out: Writer,
    err: Writer,
    first_ever: bool = False,
) -> int:
    """0 with the verdict printed; 2 with a one-line reason when the input is unusable."""
    try:
        rmap = parse_rank_map(Path(rank_map).read_bytes(), name=rank_map) if rank_map else None
        # One file at a time: a 16,384-rank dump set is never whole in memory.
        seen = InputsSeen()
        sources = seen.watch(iter_paths(paths))
        result = analyse(
            sources, rank_map=rmap, world_size=world_size, year=year, first_ever=first_ever
        )
        why = unreadable_reason(result.refused, used=result.stats["used"], where="the input")
        if why is not None:
            raise FailureInputError(why)
    except FailureInputError as exc:
        err.write(f"analyze_failure: {exc}\n")
        return 2
    except OSError as exc:
        err.write(f"analyze_failure: cannot read: {exc.strerror or exc}\n")
        return 2
    doc = {**result.to_json(), "inputs": seen.to_json()}
    out.write(json.dumps(doc, allow_nan=False) if as_json else render(result))
    out.write("\n")
    return 0


def _chain_time(e: Event) -> str:
    """A line's own time; a time borrowed from its neighbours only as their bounds."""
    if e.time_utc is None:
        return "?"
    if not e.detail.get("time_inferred"):
        return e.time_utc.isoformat()
    low, high = e.detail.get("time_range") or [None, None]
    return f"(no own time: after {low or '?'}, before {high or '?'})"


def _rank(rank: int | None) -> str:
    """A rank no file names reads "?", as in the summary line, never "None"."""
    return "?" if rank is None else str(rank)


def render(result: Analysis) -> str:
    lines = [f"Initiating: {result.summary()}"]
    if result.first_failure is not None:
        e = result.first_failure
        lines.append(f"  {e.source}:{e.line_no}  {e.text[:160]}")
    lines.append(f"Suggested owner: {result.suggested_owner} — {'; '.join(result.owner_reasons)}")
    lines += [f"  - {r}" for r in result.reasons]
    if result.candidates:
        lines.append("Other candidates:" if result.first_failure else "Candidates:")
        lines += [
            f"  rank {_rank(c['rank'])} on {c['node'] or '?'}: {c['kind']} ({c['why']})"
            for c in result.candidates
        ]
    if result.attempts:
        lines.append("Later attempts:" if result.first == "ever" else "Earlier attempts:")
        for a in result.attempts:
            where = f"{a.first_failure.source}:{a.first_failure.line_no}" if a.first_failure else ""
            lines.append(f"  attempt {a.attempt}: {a.summary()}  {where}")
    lines.append("Evidence chain:")
    for e in result.chain:
        when = _chain_time(e)
        lines.append(
            f"  {when}  rank {_rank(e.rank)}  {e.node or '?'}  {e.kind}  {e.source}:{e.line_no}"
        )
    lines.append(f"Secondary ranks: {len(result.secondary_ranks)}")
    for g in result.secondaries:
        lines.append(f"  {g.kind} ({g.cause}): {len(g.ranks)} ranks, {g.count} events")
    if result.mismatches:
        lines.append("Mismatched collectives:")
        lines += [
            f"  seq {m.seq} {m.field}: ranks {m.ranks[:16]} {m.values}" for m in result.mismatches
        ]
    if result.world_size is not None:
        lines.append(f"World size: {result.world_size} ({result.world_from})")
    if result.missing:
        lines.append("Missing:")
        lines += [f"  {m}" for m in result.missing]
    return "\n".join(lines)
