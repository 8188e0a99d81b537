"""Run one failed-run analysis in a child interpreter with a memory cap, so that input which
defeats every other check (a bomb not yet thought of) kills the child, never the worker.

The parent (`analyse_isolated`) sends a job as JSON on stdin; the child (`python -m
engine.failures.isolated`) caps its own address space, analyses the files (on disk, or
streamed from object storage by presigned URL) under the names they were uploaded with, and
answers one JSON object on stdout:
`{"analysis": ...}`, `{"unreadable": "why"}` or `{"crashed": "why"}`. No Django here.
"""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from engine.formatting import data_size

from .analysis import analyse
from .bundle import iter_uploads, unreadable_reason
from .errors import FailureInputError
from .rankmap import parse_rank_map
from .record import InputsSeen

_CHUNK = 1024 * 1024


class AnalysisAborted(Exception):
    """The child ran out of memory or time, or died: the run fails with this reason."""


@dataclass(frozen=True)
class Job:
    files: list[tuple[str, str]]  # (path on disk or presigned URL, name as uploaded)
    rank_map: tuple[str, str] | None
    world_size: int | None
    memory_bytes: int
    received: datetime | None = None  # when the files arrived: dates stamps without a year


def analyse_isolated(job: Job, *, seconds: int) -> dict[str, Any]:
    """The analysis as `Analysis.to_json()`; FailureInputError for unusable input;
    AnalysisAborted when the child hit its memory cap, its time limit, or died."""
    spec = json.dumps(
        {
            "files": job.files,
            "rank_map": job.rank_map,
            "world_size": job.world_size,
            "memory_bytes": job.memory_bytes,
            "received": job.received.isoformat() if job.received else None,
        }
    )
    try:
        done = subprocess.run(
            [sys.executable, "-m", "engine.failures.isolated"],
            input=spec.encode(),
            capture_output=True,
            timeout=seconds,
            check=False,
            cwd=Path(__file__).resolve().parents[2],
        )
    except subprocess.TimeoutExpired:
        raise AnalysisAborted(f"the analysis ran past its time limit ({seconds} s)") from None
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        if done.returncode < 0:
            raise AnalysisAborted(
                f"the analysis was killed by signal {-done.returncode}, most likely for using "
                f"more than its {data_size(job.memory_bytes)} memory limit"
            )
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        raise AnalysisAborted(f"the analysis stopped ({tail[0][:300]})")
    if "unreadable" in answer:
        raise FailureInputError(str(answer["unreadable"]))
    if "crashed" in answer:
        raise AnalysisAborted(str(answer["crashed"]))
    return dict(answer["analysis"])


def _opened(stack: ExitStack, files: list[list[str]]) -> Iterator[tuple[IO[bytes], str]]:
    for location, name in files:
        yield _open(stack, location), name


def _open(stack: ExitStack, location: str) -> IO[bytes]:
    """A file on this host's disk, or one in object storage by its short-lived presigned URL:
    copied to a private temporary file in chunks (an archive needs seeking), one at a time."""
    if not location.startswith(("https://", "http://")):
        return stack.enter_context(open(location, "rb"))
    spool = stack.enter_context(tempfile.TemporaryFile())  # noqa: SIM115 (closed by the stack)
    with urllib.request.urlopen(location, timeout=60) as response:
        shutil.copyfileobj(response, spool, _CHUNK)
    spool.seek(0)
    return spool


def _child(spec: dict[str, Any]) -> dict[str, Any]:
    limit = int(spec["memory_bytes"])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        rmap = None
        if spec.get("rank_map"):
            location, name = spec["rank_map"]
            with ExitStack() as stack:
                rmap = parse_rank_map(_open(stack, location).read(), name=name)
        seen = InputsSeen()
        with ExitStack() as stack:
            sources = seen.watch(iter_uploads(_opened(stack, spec["files"])))
            received = spec.get("received")
            analysis = analyse(
                sources,
                rank_map=rmap,
                world_size=spec.get("world_size"),
                received=datetime.fromisoformat(received) if received else None,
            )
        why = unreadable_reason(analysis.refused, used=analysis.stats["used"])
        if why is not None:
            raise FailureInputError(why)
        return {"analysis": {**analysis.to_json(), "inputs": seen.to_json()}}
    except FailureInputError as exc:
        return {"unreadable": str(exc)}
    except MemoryError:
        return {"crashed": f"the analysis needed more than its {data_size(limit)} memory limit"}
    except RecursionError:
        return {"crashed": "the evidence is nested too deeply to analyse"}


def main() -> None:
    answer = _child(json.loads(sys.stdin.buffer.read()))
    sys.stdout.write(json.dumps(answer, allow_nan=False))


if __name__ == "__main__":
    main()
