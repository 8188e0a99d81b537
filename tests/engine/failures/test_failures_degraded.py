"""The S2 detector on its own (plain Python): every step of the agreed window over the agreed rise
against the hand-over baseline, each step the median of its ranks; a blip or a slow run shorter
than the window never qualifies, no baseline means no verdict, bad rows name their line."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engine.failures import FailureInputError
from engine.failures.degraded import detect_degraded, parse_rank_steps
from engine.failures.incident import IncidentTermsError, partial_gpu_hours

STEPS = Path(__file__).resolve().parents[2] / "data" / "failures" / "degraded"
HANDOVER = 1.001  # the hand-over baseline's step time for the fixtures' job (burn-in median)
T0 = datetime(2026, 11, 4, 10, tzinfo=UTC)


def _rows(name: str):
    return parse_rank_steps((STEPS / name).read_bytes(), name=name)


def test_the_sustained_rise_qualifies_at_ten_but_not_at_thirty_percent():
    rows = _rows("steps_8ranks_gpu-a02_sustained_rise.csv")
    found = detect_degraded(rows, baseline_s=HANDOVER, threshold_pct=10, window_minutes=15)
    assert found.qualifies and found.nodes == ["gpu-a02"] and found.first_step == 90
    stricter = detect_degraded(rows, baseline_s=HANDOVER, threshold_pct=30, window_minutes=15)
    # Each step's median over its ranks is +27 %: nothing reaches +30 %.
    assert not stricter.qualifies and stricter.message.startswith("No step rose +30%")


def test_a_longer_window_moves_the_end_but_not_the_start():
    rows = _rows("steps_8ranks_gpu-a02_sustained_rise.csv")
    short = detect_degraded(rows, baseline_s=HANDOVER, threshold_pct=10, window_minutes=15)
    long = detect_degraded(rows, baseline_s=HANDOVER, threshold_pct=10, window_minutes=25)
    assert long.window_end - long.window_start > short.window_end - short.window_start
    assert long.window_end > short.window_end
    # Either way the window opens at the first slow step, not minutes before it.
    assert long.window_start == short.window_start == datetime(2026, 11, 4, 10, 30, tzinfo=UTC)
    # The slow steps run from 10:30:00 to the log's last step at 10:59:40: not 30 minutes.
    longer = detect_degraded(rows, baseline_s=HANDOVER, threshold_pct=10, window_minutes=30)
    assert not longer.qualifies and longer.blip["longest_run_minutes"] == 29.7


def test_a_blip_is_named_with_its_step_and_rise():
    found = detect_degraded(
        _rows("steps_8ranks_blip_step60.csv"), baseline_s=1.0, threshold_pct=10, window_minutes=15
    )
    assert not found.qualifies and found.blip["step"] == 60 and found.blip["rise_pct"] == 62.1
    assert "the longest run of steps each +10% over it lasted 0.0 min" in found.message


def test_a_log_shorter_than_the_window_is_not_judged():
    t0 = datetime(2026, 11, 4, 10, tzinfo=UTC)
    text = "time,step,step_seconds\n" + "\n".join(
        f"{(t0 + timedelta(minutes=i)).isoformat()},{i},{1.0 if i < 5 else 1.3}" for i in range(10)
    )
    found = detect_degraded(
        parse_rank_steps(text), baseline_s=1.0, threshold_pct=10, window_minutes=15
    )
    assert not found.qualifies and found.blip is not None  # slow steps, but no whole window
    assert "shorter than the window" in found.message


def _log(
    seconds_of: Callable[[int, datetime], float],
    *,
    minutes: int = 60,
    cadence: int = 20,
    ranks: int = 4,
    per_rank: Callable[[int, float], float] | None = None,
) -> str:
    """`rank,node,step,seconds,timestamp`, two ranks a node, one row per rank and step."""
    lines = ["rank,node,step,seconds,timestamp"]
    for step in range(minutes * 60 // cadence):
        at = T0 + timedelta(seconds=step * cadence)
        for rank in range(ranks):
            value = seconds_of(step, at)
            value = per_rank(rank, value) if per_rank else value + 0.002 * (rank % 2) - 0.001
            lines.append(f"{rank},gpu-{rank // 2:02d},{step},{value:.4f},{at:%Y-%m-%dT%H:%M:%SZ}")
    return "\n".join(lines) + "\n"


def _rise(minutes: float, *, pct: float = 12.0, at: int = 20) -> Callable[[int, datetime], float]:
    """+`pct` for `minutes` from 10:`at` (both ends' steps slow), 1.000 s otherwise."""
    start = T0 + timedelta(minutes=at)
    end = start + timedelta(minutes=minutes)
    return lambda step, t: 1.0 * (1 + pct / 100) if start <= t <= end else 1.0


def _detect(text: str, *, baseline: float | None = 1.0, window: float = 15):
    rows = parse_rank_steps(text, name="steps.csv")
    return detect_degraded(rows, baseline_s=baseline, threshold_pct=10, window_minutes=window)


@pytest.mark.parametrize("minutes", [8, 10])
def test_a_ten_minute_twelve_percent_rise_does_not_open(minutes):
    # Every step +12 % for 8 or 10 minutes: over half of a 15-minute window, but not all of it.
    found = _detect(_log(_rise(minutes)))
    assert not found.qualifies and found.window_start is None
    assert found.blip["longest_run_minutes"] == minutes and found.blip["rise_pct"] == 12.0
    assert f"lasted {minutes:.1f} min, short of the agreed 15 min" in found.message


def test_a_sixteen_minute_rise_opens_with_failed_at_at_the_first_slow_step():
    found = _detect(_log(_rise(16)))
    first_slow = T0 + timedelta(minutes=20)
    assert found.qualifies and found.first_step == 60 and found.window_start == first_slow
    assert found.window_end == first_slow + timedelta(minutes=15)  # the window, not the run
    assert (found.last_healthy_step, found.last_healthy_at) == (
        59,
        first_slow - timedelta(seconds=20),
    )
    assert found.slow_until == first_slow + timedelta(minutes=16) and found.window_steps == 46
    window = found.window()
    assert (window.first_bad_step, window.first_bad_at) == (60, first_slow)
    assert window.basis == "degraded-step-time"


def test_one_step_back_under_the_limit_breaks_the_window():
    # 16 slow minutes with one normal step in the middle: two 8-minute runs, neither a window.
    def seconds(step: int, at: datetime) -> float:
        return 1.0 if step == 84 else _rise(16)(step, at)

    found = _detect(_log(seconds))
    assert not found.qualifies and found.blip["longest_run_minutes"] < 15


def test_a_log_that_starts_degraded_qualifies_against_the_handover_baseline():
    # +15 % from the very first step: the log's own early steps would call that normal.
    found = _detect(_log(lambda step, at: 1.15 * HANDOVER, minutes=20), baseline=HANDOVER)
    assert found.qualifies and found.first_step == 0 and found.window_start == T0
    assert found.last_healthy_step is None and found.baseline_s == HANDOVER


def test_without_a_baseline_nothing_is_judged_and_it_says_so():
    found = _detect(_log(_rise(30)), baseline=None)
    assert not found.qualifies and found.limit_s is None and found.baseline_s is None
    assert found.message.startswith("No baseline step time for this job")
    assert "No S2 is opened." in found.message


def test_each_step_is_the_median_of_its_ranks():
    # One rank of four +40 %: the step's median stays at the baseline, no S2.
    one_slow = _log(_rise(20, pct=40), per_rank=lambda rank, v: v if rank == 3 else 1.0)
    assert not _detect(one_slow).qualifies
    # Two of four +30 %, two at the baseline: the median is +15 %, every step, an S2.
    half = _log(_rise(20, pct=30), per_rank=lambda rank, v: v if rank >= 2 else 1.0)
    found = _detect(half)
    assert found.qualifies and found.first_step == 60
    assert [(s["rank"], s["node"]) for s in found.slowest] == [(2, "gpu-01"), (3, "gpu-01")]
    assert found.nodes == ["gpu-01"]
    assert found.rank_map == [(0, "gpu-00"), (1, "gpu-00"), (2, "gpu-01"), (3, "gpu-01")]
    assert found.rank_map_from == "columns"
    # One fast rank cannot hide a slow step: three +15 %, one at -10 %.
    fast_one = _log(_rise(20, pct=15), per_rank=lambda rank, v: 0.9 if rank == 0 else v)
    assert _detect(fast_one).qualifies


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("rank,node,step,seconds\n0,a,1,1.0\n", "line 1: the header lacks time"),
        ("time,step,step_seconds\n2026-11-04T10:00:00Z,x,1.0\n", "line 2: step 'x'"),
        ("time,step,step_seconds\n2026-11-04T10:00:00Z,1,-1\n", "line 2: step time must be"),
        ("time,step,step_seconds\nyesterday,1,1.0\n", "line 2: unreadable time"),
        ("time,step,step_seconds\n2026-11-04T10:00:00Z,1\n", "line 2: expected 3 values"),
    ],
)
def test_bad_rows_name_their_line(text, words):
    with pytest.raises(FailureInputError, match=words):
        parse_rank_steps(text, name="steps.csv")


def test_partial_capacity_is_the_missing_nodes_gpus_times_the_outage():
    out = datetime(2026, 11, 4, 10, tzinfo=UTC)
    lost = partial_gpu_hours(
        nodes_out=2, gpus_per_node=8, out_at=out, restored_at=out + timedelta(hours=1, minutes=15)
    )
    assert lost["gpu_hours"] == 20.0 and lost["formula"].startswith("2 nodes × 8 GPUs × 1.25 h")


def test_an_s3_counts_the_rollback_and_the_stop_before_the_restart_on_fewer_nodes():
    """docs/incidents-opening.md, worked: 2 nodes × 8 GPUs; the checkpoint at 09:30, the node
    out at 10:00, the job back on one node at 10:40, the node restored at 13:30."""
    out = datetime(2026, 11, 4, 10, tzinfo=UTC)
    lost = partial_gpu_hours(
        nodes_out=1,
        gpus_per_node=8,
        out_at=out,
        restored_at=out + timedelta(hours=3, minutes=30),
        all_gpus=16,
        fewer_nodes_at=out + timedelta(minutes=40),
        last_checkpoint=out - timedelta(minutes=30),
    )
    assert lost["parts"] == {"rollback": 8.0, "stopped": 10.667, "reduced": 22.667}
    assert lost["gpu_hours"] == 41.333 and lost["needs"] == []
    assert lost["formula"].startswith("rollback: 16 GPUs × 0.50 h since the checkpoint at")
    with pytest.raises(IncidentTermsError, match="must lie between"):
        partial_gpu_hours(
            nodes_out=1, gpus_per_node=8, out_at=out, restored_at=out + timedelta(hours=1),
            all_gpus=16, fewer_nodes_at=out + timedelta(hours=2),
        )  # fmt: skip
