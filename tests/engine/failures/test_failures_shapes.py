"""Shapes real launchers print that the other fixtures do not hold: a torchrun entry carrying the
rank's own traceback from its error file, and NCCL's error repeated by PyTorch under
`Last error:`."""

from __future__ import annotations

from failures_helpers import DATA, events_of

from engine.failures import Analysis, SourceFile, analyse
from engine.failures.normalise import split_prefixes

SHAPES = DATA / "shapes"


def _analyse(*names: str) -> Analysis:
    files = [SourceFile(n, (SHAPES / n).read_bytes()) for n in names]
    return analyse(files, year=2025)


def test_an_error_file_traceback_belongs_to_the_rank_of_its_torchrun_entry() -> None:
    result = _analyse("torchrun_error_file_traceback_node-b.log")
    first = result.first_failure
    assert first is not None
    assert (first.kind, first.rank, first.node) == ("cuda_error", 9, "gpu-b07")
    assert first.line_no == 34 and "illegal memory access" in first.text
    assert first.detail["from"] == "torchrun error_file"
    assert any("first observed failure' is rank 9" in r and "taken" in r for r in result.reasons)


def test_the_traceback_lines_of_an_entry_are_not_read_again_as_loose_lines() -> None:
    events = events_of("shapes/torchrun_error_file_traceback_node-b.log", year=2025)
    rankless = [(e.kind, e.line_no) for e in events if e.rank is None]
    assert rankless == []
    assert sorted(e.rank for e in events if e.kind == "launcher_summary") == [8, 9]


def test_an_ib_completion_error_under_last_error_is_the_network_not_a_timeout() -> None:
    result = _analyse("nccl_remote_error_last_error.log")
    first = result.first_failure
    assert first is not None
    assert (first.kind, first.rank) == ("nccl_warn_transport", 4)
    assert first.detail["peer_ip"] == "10.20.3.17"
    assert result.suggested_owner == "provider"


def test_pdsh_host_prefixes_give_the_node_and_keep_a_traceback_whole() -> None:
    """DeepSpeed's multi-node launcher runs through pdsh, which puts `host: ` before every line;
    another host's line inside the traceback does not end it."""
    result = _analyse("deepspeed_pdsh_2node.log")
    first = result.first_failure
    assert first is not None
    assert (first.kind, first.rank, first.node) == ("python_exception", 13, "gpu-a02")
    assert first.detail["exc_type"] == "UnicodeDecodeError" and first.line_no == 10
    waited = [e for e in result.timeline if e.kind == "nccl_timeout"]
    assert [(e.rank, e.node) for e in waited] == [(2, "gpu-a01")]


def test_a_host_prefix_is_never_read_from_an_exception_line() -> None:
    for line in ("cv2.error: OpenCV(4.8.0) resize.cpp:4062: error: (-215:Assertion failed)",
                 "RuntimeError: CUDA error: an illegal memory access was encountered"):  # fmt: skip
        _, body = split_prefixes(line)
        assert body == line
