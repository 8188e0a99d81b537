"""Ray's memory monitor and Ray's coloured prefixes, as a Ray job's driver log and rsyslog keep
them (shapes from public Ray, vLLM and EasyR1 reports)."""

from __future__ import annotations

from failures_helpers import DATA

from engine.failures import Analysis, SourceFile, analyse, normalise_text
from engine.failures.colour import without_colour

SHAPES = DATA / "shapes"


def _analyse(folder: str) -> Analysis:
    files = [SourceFile(p.name, p.read_bytes()) for p in sorted((SHAPES / folder).iterdir())]
    return analyse(files, year=2025)


def test_ray_s_memory_monitor_kill_is_first_on_the_node_it_names_and_takes_no_side() -> None:
    result = _analyse("ray_memory_monitor")
    first = result.first_failure
    assert first is not None
    assert (first.kind, first.node, first.line_no) == ("oom", "10.0.49.121", 8)
    assert result.suggested_owner == "undetermined"
    (reason,) = result.owner_reasons
    assert "RAY_memory_usage_threshold" in reason and "what would decide it" in reason
    assert "processes on the node outside the job (provider)" in reason


def test_ray_s_advice_and_the_driver_s_out_of_memory_error_are_not_the_kill() -> None:
    text = without_colour((SHAPES / "ray_memory_monitor" / "ray-job-driver.log").read_text())
    ooms = [e for e in normalise_text(text, source="ray-job-driver.log", year=2025)
            if e.kind == "oom"]  # fmt: skip
    assert [e.line_no for e in ooms] == [8, 18]  # not line 10, "how to address the … issue"
    assert ooms[1].detail["secondary"] is True


def test_a_coloured_ray_worker_prefix_still_gives_the_rank_and_its_node_s_ip() -> None:
    result = _analyse("ray_memory_monitor")
    (waited,) = [e for e in result.timeline if e.kind == "python_exception"]
    assert (waited.rank, waited.detail["ip"]) == (0, "10.0.24.158")
    assert waited.text.startswith("torch.distributed.DistBackendError")


def test_rsyslog_s_escaped_colour_codes_do_not_hide_the_raylet_s_kill() -> None:
    result = _analyse("raylet_oom_rsyslog")
    first = result.first_failure
    assert first is not None
    assert (first.kind, first.node) == ("oom", "10.0.167.26")
    assert "#033[" not in first.text
    assert first.time_utc is not None and first.time_utc.isoformat().startswith("2023-09-23T10:14")
