"""Pure pieces: the newest complete checkpoint and its rewind cost; the incident's UTC window."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engine.failures import (
    FailureInputError,
    assess_checkpoints,
    incident_window,
    parse_listing,
    parse_step_records,
)
from tests.incidents.helpers import DATA

CKPT = DATA / "checkpoints"


def _verdict(name: str, failing: int | None) -> dict:
    return assess_checkpoints(
        parse_listing((CKPT / name).read_bytes()), failing_step=failing
    ).to_json()


def test_deepspeed_latest_pointer_beats_a_newer_half_written_directory() -> None:
    v = _verdict("deepspeed_latest.json", 1450)
    assert (v["status"], v["checkpoint"], v["rewind_steps"]) == ("complete", "global_step1400", 50)
    newest = v["checkpoints"][0]
    assert newest["name"] == "global_step1600" and newest["status"] == "incomplete"


def test_megatron_tracker_via_ls_lR() -> None:
    v = _verdict("ls_lR_megatron.txt", 3100)
    assert v["checkpoint"] == "iter_0002000" and v["rewind_steps"] == 1100
    assert v["checkpoints"][0]["status"] == "incomplete"  # newer than the tracker


def test_dcp_shards_without_metadata_are_incomplete() -> None:
    v = _verdict("find_dcp.txt", 1200)
    assert (v["status"], v["checkpoint"], v["rewind_steps"]) == ("complete", "step_500", 700)
    assert "without .metadata" in v["checkpoints"][0]["reasons"][0]


def test_without_markers_it_is_inconclusive_not_the_newest_timestamp() -> None:
    v = _verdict("find_hf_no_markers.txt", 1100)
    assert v["status"] == "inconclusive" and v["checkpoint"] is None
    assert any("cannot judge" in r for r in v["reasons"])


def test_sha256sum_and_size_listings_merge() -> None:
    text = "\n".join([
        f"{'a' * 64}  ckpt/step_10/metadata.json",
        "1024 ckpt/step_10/model.pt",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  ckpt/step_20/model.pt",
    ])  # fmt: skip
    v = assess_checkpoints(parse_listing(text), failing_step=25).to_json()
    assert v["checkpoint"] == "step_10" and v["rewind_steps"] == 15


@pytest.mark.parametrize("bad", [b"", b"{broken", b'{"files": 3}'])
def test_bad_listings_say_why(bad: bytes) -> None:
    with pytest.raises(FailureInputError):
        parse_listing(bad, name="listing.json")


def test_window_from_a_log_and_the_failure_time() -> None:
    records = parse_step_records((DATA / "recovery" / "train_steps.log").read_bytes())
    failure = datetime(2025, 3, 1, 11, 58, 4, tzinfo=UTC)
    w = incident_window(records, failure_time=failure)
    assert (w.last_healthy_step, w.first_bad_step) == (1201, 1202)
    assert w.first_bad_at == datetime(2025, 3, 1, 11, 58, 5, tzinfo=UTC)


def _steps_csv(seconds_of, *, minutes: int, cadence: float = 2.0, ranks: int = 4) -> str:
    """`time,step,step_seconds,rank` as training jobs log it: one row per rank and step."""
    start = datetime(2025, 3, 1, 11, 0, tzinfo=UTC)
    lines = ["time,step,step_seconds,rank"]
    for step in range(int(minutes * 60 / cadence)):
        at = start + timedelta(seconds=step * cadence)
        for rank in range(ranks):
            jitter = 0.01 * ((step + rank) % 3 - 1)
            value = seconds_of(step, at) + jitter
            lines.append(f"{at:%Y-%m-%dT%H:%M:%SZ},{step},{value:.3f},{rank}")
    return "\n".join(lines) + "\n"


def test_a_sustained_rise_over_the_window_is_degraded() -> None:
    # 1.00 s steps for 25 minutes, then 1.20 s (+20 %) for the rest of the 45.
    text = _steps_csv(lambda step, at: 1.20 if step >= 750 else 1.00, minutes=45)
    w = incident_window(
        parse_step_records(text), failure_time=None, degraded_pct=10, baseline_seconds=1.0
    )
    assert w.basis == "degraded-step-time" and w.first_bad_step == 750
    assert w.last_healthy_step == 749
    assert "sustained degradation from step 750" in " ".join(w.reasons)
    assert "15 min" in " ".join(w.reasons)


def test_without_a_baseline_a_rise_is_not_judged_degraded() -> None:
    # The log's own early steps are never the baseline: without the hand-over one, no verdict.
    text = _steps_csv(lambda step, at: 1.20 if step >= 750 else 1.00, minutes=45)
    w = incident_window(parse_step_records(text), failure_time=None, degraded_pct=10)
    assert w.basis == "step-log" and w.first_bad_step is None
    assert "no baseline step time for this job" in " ".join(w.reasons)


def test_a_log_slow_from_its_first_step_is_degraded_against_the_handover_baseline() -> None:
    text = _steps_csv(lambda step, at: 1.20, minutes=20)
    w = incident_window(
        parse_step_records(text), failure_time=None, degraded_pct=10, baseline_seconds=1.0
    )
    assert w.basis == "degraded-step-time" and w.first_bad_step == 0
    assert w.last_healthy_step is None


def test_a_lone_blip_is_named_and_never_degraded() -> None:
    # One step at +50 % and a 30-second burst at +30 %: the 15-minute median never moves.
    def seconds(step: int, at: datetime) -> float:
        if step == 400:
            return 1.50
        return 1.30 if 900 <= step < 915 else 1.00

    w = incident_window(
        parse_step_records(_steps_csv(seconds, minutes=45)),
        failure_time=None,
        degraded_pct=10,
        baseline_seconds=1.0,
    )
    assert w.basis == "step-log" and w.first_bad_step is None
    assert "a blip, not degraded throughput" in " ".join(w.reasons)
    assert "first: step 400" in " ".join(w.reasons)


def test_the_terms_window_decides_what_is_sustained() -> None:
    # A 6-minute slowdown: sustained for a 5-minute definition, a blip for a 15-minute one.
    text = _steps_csv(lambda step, at: 1.25 if 600 <= step < 780 else 1.00, minutes=40)
    short = incident_window(
        parse_step_records(text),
        failure_time=None,
        degraded_pct=10,
        baseline_seconds=1.0,
        window_minutes=5,
    )
    assert short.basis == "degraded-step-time" and short.first_bad_step == 600
    long = incident_window(
        parse_step_records(text), failure_time=None, degraded_pct=10, baseline_seconds=1.0
    )
    assert long.first_bad_step is None and "blip" in " ".join(long.reasons)


def test_a_log_shorter_than_the_window_cannot_show_degradation() -> None:
    records = parse_step_records((DATA / "recovery" / "train_steps.log").read_bytes())
    w = incident_window(records, failure_time=None, degraded_pct=10, baseline_seconds=1.0)
    assert w.basis == "step-log" and w.first_bad_step is None
    assert "less than the 15 min window" in " ".join(w.reasons)


def test_window_when_no_step_finished_after_the_failure() -> None:
    text = "step,timestamp,seconds\n10,2025-03-01T12:00:00Z,1.0\n11,2025-03-01T12:00:01Z,1.0\n"
    w = incident_window(
        parse_step_records(text), failure_time=datetime(2025, 3, 1, 12, 0, 30, tzinfo=UTC)
    )
    assert (w.last_healthy_step, w.first_bad_step) == (11, 12)
    assert w.first_bad_at == datetime(2025, 3, 1, 12, 0, 30, tzinfo=UTC)


def test_window_without_steps_is_the_failure_time_only() -> None:
    failure = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
    w = incident_window([], failure_time=failure)
    assert w.basis == "failure-time-only" and w.first_bad_at == failure
