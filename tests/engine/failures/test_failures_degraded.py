"""The S2 detector on its own (plain Python): the terms' threshold and window decide, a blip
never qualifies, a log shorter than the window says so, bad rows name their line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engine.failures import FailureInputError
from engine.failures.degraded import detect_degraded, parse_rank_steps
from engine.failures.incident import partial_gpu_hours
from tests.incidents.helpers import DATA

STEPS = DATA / "degraded"


def _rows(name: str):
    return parse_rank_steps((STEPS / name).read_bytes(), name=name)


def test_the_sustained_rise_qualifies_at_ten_but_not_at_thirty_percent():
    rows = _rows("steps_8ranks_gpu-a02_sustained_rise.csv")
    found = detect_degraded(rows, threshold_pct=10, window_minutes=15)
    assert found.qualifies and found.nodes == ["gpu-a02"] and found.first_step == 90
    stricter = detect_degraded(rows, threshold_pct=30, window_minutes=15)
    # Each step's median over its ranks is +27 %: nothing reaches +30 %.
    assert not stricter.qualifies and stricter.message.startswith("No step rose +30%")


def test_a_longer_window_moves_the_first_qualifying_window():
    rows = _rows("steps_8ranks_gpu-a02_sustained_rise.csv")
    short = detect_degraded(rows, threshold_pct=10, window_minutes=15)
    long = detect_degraded(rows, threshold_pct=10, window_minutes=30)
    assert long.window_end - long.window_start > short.window_end - short.window_start
    assert long.window_end > short.window_end


def test_a_blip_is_named_with_its_step_and_rise():
    found = detect_degraded(
        _rows("steps_8ranks_blip_step60.csv"), threshold_pct=10, window_minutes=15
    )
    assert not found.qualifies and found.blip["step"] == 60 and found.blip["rise_pct"] == 62.1


def test_a_log_shorter_than_the_window_is_not_judged():
    t0 = datetime(2026, 11, 4, 10, tzinfo=UTC)
    text = "time,step,step_seconds\n" + "\n".join(
        f"{(t0 + timedelta(minutes=i)).isoformat()},{i},{1.0 if i < 5 else 1.3}" for i in range(10)
    )
    found = detect_degraded(parse_rank_steps(text), threshold_pct=10, window_minutes=15)
    assert not found.qualifies and found.blip is not None  # slow steps, but no whole window


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
