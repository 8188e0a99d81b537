"""Shapes real launchers print that the other fixtures do not hold: a torchrun entry carrying the
rank's own traceback from its error file, and NCCL's error repeated by PyTorch under
`Last error:`."""

from __future__ import annotations

from datetime import UTC, datetime

from failures_helpers import DATA, events_of, one

from engine.failures import Analysis, SourceFile, analyse
from engine.failures.errorfile import error_file_text
from engine.failures.normalise import split_prefixes
from engine.failures.timestamps import log_year

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


def test_a_torchelastic_error_file_is_read_as_the_traceback_it_holds() -> None:
    """`<log-dir>/attempt_0/<local_rank>/error.json`: one line of JSON holding the rank's
    traceback and the time it was written; the folder names the node, the path the local rank."""
    root = SHAPES / "torchelastic_logdir"
    names = ["gpu-b07/attempt_0/1/error.json", "rank_map.csv"]
    result = analyse([SourceFile(n, (root / n).read_bytes()) for n in names])
    first = result.first_failure
    assert first is not None
    assert (first.kind, first.rank, first.node) == ("cuda_error", 9, "gpu-b07")
    assert first.time_utc is not None and first.time_utc.isoformat() == "2025-02-11T09:14:01+00:00"


def test_json_that_is_no_error_file_stays_as_it_was() -> None:
    assert error_file_text("a/attempt_0/1/error.json", '{"message": 3}') is None
    assert error_file_text("x.json", '{"entries": []}') is None
    assert error_file_text("x.log", "Traceback (most recent call last):") is None


def test_the_year_of_a_dmesg_t_line_dates_glog_lines_that_carry_none() -> None:
    """glog (`[E211 09:44:10 …]`) has no year; the bundle's `dmesg -T` does, and the Xid on the
    timed-out rank's neighbour GPU comes 30 minutes before the timeout, not a year after it."""
    root = SHAPES / "xid_no_iso_year"
    names = ["gpu-b07/dmesg.txt", "gpu-b07.log"]
    result = analyse([SourceFile(n, (root / n).read_bytes()) for n in names])
    first = result.first_failure
    assert first is not None and (first.kind, first.rank, first.node) == ("xid", 9, "gpu-b07")
    [timeout] = [e for e in result.timeline if e.kind == "nccl_timeout"]
    assert timeout.time_utc is not None and timeout.time_utc.year == 2025
    finished = "    Finished:     Wed, 01 May 2024 12:05:30 +0000"
    assert log_year([finished], now=datetime.now(UTC)).latest.year == 2024


def test_a_watchdog_that_hung_before_anyone_timed_out_points_weakly_at_its_rank() -> None:
    result = _analyse("watchdog_hang_first.log")
    first = result.first_failure
    assert first is not None and (first.rank, first.kind) == (5, "nccl_timeout")
    assert first.detail["hang"] and result.confidence == "low"
    assert any("watchdog hang before any other rank timed out" in r for r in result.reasons)


def test_a_watchdog_that_hung_after_the_others_timed_out_names_no_one() -> None:
    result = _analyse("watchdog_hang_after_timeouts.log")
    assert result.first_failure is None
    assert any("only consequences" in r for r in result.reasons)


def test_a_store_that_timed_out_waiting_for_clients_only_waited() -> None:
    """Rank 0 hosts the store; `3/4 clients joined` says another rank never came."""
    e = one("[rank0]: Traceback (most recent call last):\n"
            '[rank0]:   File "/w/train.py", line 20, in <module>\n'
            "[rank0]:     dist.init_process_group('nccl')\n"
            "[rank0]: torch.distributed.DistStoreError: Timed out after 901 seconds waiting for "
            "clients. 3/4 clients joined.\n")  # fmt: skip
    assert (e.rank, e.kind, e.secondary) == (0, "python_exception", True)


def test_sacct_without_its_header_is_read_in_sacct_s_default_columns() -> None:
    """`sacct -P -n`: JobID|JobName|Partition|Account|AllocCPUS|State|ExitCode, no header."""
    result = _analyse("sacct-4711-noheader.txt")
    steps = [(e.detail["step"], e.detail["state"], e.detail.get("signal"))
             for e in result.timeline if e.kind == "scheduler"]  # fmt: skip
    assert steps == [("4711", "NODE_FAIL", None), ("4711.batch", "CANCELLED", 15),
                     ("4711.0", "CANCELLED", 9)]  # fmt: skip


def test_an_unindented_line_after_an_entry_s_traceback_is_read_on_its_own() -> None:
    events = events_of("shapes/torchrun_entry_then_kernel_line.log", year=2025)
    found = [(e.kind, e.rank, e.line_no) for e in events]
    assert found == [("launcher_summary", 9, 2), ("python_exception", 9, 11), ("xid", None, 12)]


def test_the_task_a_step_was_cancelled_for_is_the_one_srun_did_not_terminate() -> None:
    result = _analyse("ztile-5738-thru20250324-52222788.log")
    first = result.first_failure
    assert first is not None
    assert (first.kind, first.rank, first.node) == ("scheduler", 58, "nid002888")
    assert first.detail["task"] == 58 and result.confidence == "low"
    assert result.suggested_owner == "undetermined"
    (reason,) = result.owner_reasons
    assert "task 58 ended before Slurm cancelled step 52222788.0" in reason
    assert "what would decide it: that task's own output" in reason


def test_a_step_whose_failed_task_srun_names_gets_no_inferred_task() -> None:
    files = [SourceFile("slurm-job.out", (DATA / "slurm-job.out").read_bytes())]
    result = analyse(files, year=2024)
    assert result.first_failure is not None
    assert (result.first_failure.rank, result.first_failure.detail.get("unterminated")) == (9, None)


def test_an_agent_s_sigkill_with_nothing_else_is_the_first_death_of_its_local_rank() -> None:
    result = _analyse("accelerate_rich_agent_sigkill.log")
    first = result.first_failure
    assert first is not None
    assert (first.kind, first.rank, first.detail["local_rank"]) == ("signal", None, 5)
    assert first.detail["death"] == "SIGKILL" and result.suggested_owner == "undetermined"
    assert "SIGKILL on rank ? (local rank 5) with no OOM line" in result.owner_reasons[0]


def test_an_agent_s_line_takes_the_rank_of_the_summary_entry_with_its_pid() -> None:
    result = _analyse("torchrun_sigbus_4ranks_32a68c302449.log")
    assert not any("name only a local rank" in r for r in result.reasons)
    assert result.first_failure is not None
    assert result.first_failure.kind == "launcher_summary"


def test_a_sigbus_with_no_hardware_line_names_dev_shm_among_what_decides_it() -> None:
    result = _analyse("torchrun_sigbus_4ranks_32a68c302449.log")
    assert result.suggested_owner == "undetermined"
    (reason,) = result.owner_reasons
    assert reason.startswith("SIGBUS on rank") and "`df -h /dev/shm`" in reason


def test_a_store_nobody_joined_counts_the_world_and_says_what_decides_it() -> None:
    result = _analyse("rendezvous_store_timeout_1of3.log")
    assert result.first_failure is None and result.world_size == 3
    assert result.suggested_owner == "undetermined"
    assert "2 of 3 ranks never reached the rendezvous store" in result.owner_reasons[-1]
    assert "those ranks' own logs" in result.owner_reasons[-1]


def test_a_rank_that_could_not_reach_the_store_names_its_address() -> None:
    result = _analyse("rendezvous_client_timeout_172.17.0.9.log")
    assert result.first_failure is None and result.suggested_owner == "undetermined"
    reason = result.owner_reasons[-1]
    assert "could not reach the rendezvous store at 172.17.0.9:46229" in reason
    assert "the log of the rank that hosts it" in reason


def test_an_xid_45_that_names_the_nvlink_xid_behind_it_is_that_fault() -> None:
    result = _analyse("xid45_caused_by_nvlink_xid.txt")
    first = result.first_failure
    assert first is not None
    assert (first.kind, first.detail["xid"], first.detail["reported_by_xid"]) == ("xid", 149, 45)
    assert result.suggested_owner == "provider"
    assert result.owner_reasons[0].startswith("Xid 149 on")


def test_an_xid_45_that_names_no_earlier_fault_stays_the_driver_s_cleanup() -> None:
    e = one("kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001")
    assert (e.kind, e.detail["xid"], e.secondary) == ("xid", 45, True)


def test_deepspeed_s_launcher_reporting_a_worker_killed_is_that_worker_s_death() -> None:
    result = _analyse("deepspeed_launcher_return_code_-9.log")
    first = result.first_failure
    assert first is not None
    assert (first.kind, first.detail["signal"], first.detail["local_rank"]) == ("signal", 9, 0)
    assert first.line_no == 2 and result.suggested_owner == "undetermined"
    assert "SIGKILL on rank ? (local rank 0) with no OOM line" in result.owner_reasons[0]


def test_ucx_s_bus_error_in_a_container_names_its_host_pid_and_dev_shm() -> None:
    result = _analyse("ucx_sigbus_09677202c889.log")
    first = result.first_failure
    assert first is not None
    assert (first.kind, first.node, first.detail["pid"], first.line_no) == (
        "signal", "09677202c889", 5283, 2,
    )  # fmt: skip
    assert result.suggested_owner == "undetermined"
    assert "`df -h /dev/shm`" in result.owner_reasons[0]
