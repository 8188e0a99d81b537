"""Pure pieces: the newest complete checkpoint and its rewind cost; the incident's UTC window."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from incidents.failures import (
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


def test_window_from_degraded_step_time() -> None:
    records = parse_step_records((DATA / "recovery" / "train_steps.log").read_bytes())
    w = incident_window(records, failure_time=None, degraded_pct=10)
    assert (w.last_healthy_step, w.first_bad_step, w.basis) == (1201, 1202, "degraded-step-time")


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
