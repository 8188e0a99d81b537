"""A line without a timestamp of its own (a torchrun `[rank5]:` traceback) borrows the time of
the nearest stamped line before it, which may be another process's minutes earlier. That time
orders the events; it is not shown as the line's time: the reader sees the bounds.

`unstamped_traceback_oom.log` keeps the shapes torchrun and PyTorch print: a glog warning of
rank 1 at 09:49:02, rank 5's unstamped traceback ending in `torch.OutOfMemoryError`, then the
elastic agent's stamped `Sending process … closing signal SIGTERM` at 09:54:16.
"""

from __future__ import annotations

from failures_helpers import DATA

from engine.failures import SourceFile, analyse
from engine.failures.cli import render

LOG = (DATA / "unstamped_traceback_oom.log").read_bytes()


def test_a_borrowed_time_is_shown_as_its_bounds_not_as_the_line_s_time() -> None:
    a = analyse([SourceFile("torchrun.log", LOG)], year=2026)
    assert (a.initiating_rank, a.first_failure and a.first_failure.kind) == (5, "oom")
    head = next(r for r in a.reasons if r.startswith("earliest causal event"))
    # Not "oom at 2026-06-28 09:49:02.101 UTC": that is rank 1's line, five minutes before.
    assert "at 2026-06-28 09:49:02" not in head
    assert head == (
        "earliest causal event: oom at a time inferred from neighbouring lines (logged after "
        "2026-06-28 09:49:02.101 UTC and before 2026-06-28 09:54:16.488 UTC); its order is "
        "uncertain"
    )
    assert a.confidence == "medium"
    chain = render(a).split("Evidence chain:\n", 1)[1].splitlines()[0]
    assert chain.strip().startswith(
        "(no own time: after 2026-06-28T09:49:02.101353+00:00, before "
        "2026-06-28T09:54:16.488000+00:00)  rank 5"
    )
    first = a.to_json()["first_failure"]
    assert first["time"] is None and first["time_range"]["after"].startswith("2026-06-28T09:49")
