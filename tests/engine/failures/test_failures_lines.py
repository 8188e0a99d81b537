"""Every line kind, in the shapes real tools print, plus fuzzing of the normaliser."""

from __future__ import annotations

from datetime import UTC, datetime

from failures_helpers import events_of, kinds, one
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.failures import normalise_text
from engine.failures.normalise import split_prefixes
from engine.failures.pci import pci_key
from engine.failures.timestamps import parse_line_time

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_it_reads_watchdog_timeouts_with_seq_and_pg_status() -> None:
    evs = events_of("watchdog_childfailed_node-a.log")
    timeouts = [e for e in evs if e.kind == "nccl_timeout"]
    assert {e.rank for e in timeouts} == {3}
    first = timeouts[0]
    assert first.detail["seq"] == 77 and first.detail["op"] == "ALLREDUCE"
    assert first.detail["ran_ms"] == 30012
    assert first.time_utc == datetime(2024, 5, 1, 12, 0, 40, 112233, tzinfo=UTC)
    assert timeouts[1].detail["last_completed"] == 76


def test_it_reads_the_childfailederror_block_as_launcher_summary() -> None:
    evs = [e for e in events_of("watchdog_childfailed_node-a.log") if e.kind == "launcher_summary"]
    root = [e for e in evs if e.detail["root_cause"]]
    assert len(root) == 1 and root[0].rank == 3 and root[0].node == "node-a"
    assert root[0].detail["signal"] == 6 and root[0].line_no == 23
    assert [e.rank for e in evs if not e.detail["root_cause"]] == [2]


def test_it_reads_torchrun_agent_exit_as_a_signal_with_local_rank() -> None:
    sig = [e for e in events_of("watchdog_childfailed_node-a.log") if e.kind == "signal"]
    assert sig[0].detail == {"signal": 6, "secondary": True, "tier": 3, "local_rank": 3}


def test_it_reads_nccl_warn_transport_cuda_and_plain_warns() -> None:
    evs = events_of("nccl_lines_node-b.log")
    assert kinds(evs) == [
        "nccl_init", "nccl_init", "nccl_init", "nccl_warn_transport", "nccl_warn_transport",
        "cuda_error", "nccl_warn",
    ]  # fmt: skip
    ib = evs[3]
    assert ib.node == "node-b" and ib.detail["pid"] == 2205 and ib.detail["local_dev"] == 1
    assert ib.detail["peer_ip"] == "10.1.0.11"
    assert ib.time_utc == datetime(2024, 5, 1, 12, 0, 9, tzinfo=UTC)
    assert evs[1].detail["comm_rank"] == 4 and evs[1].detail["pci"] == "18:00"
    assert evs[2].detail["nranks"] == 8  # old `comm 0x.. rank r nranks n` format


def test_it_reads_xid_and_ecc_from_iso_dmesg() -> None:
    evs = events_of("kernel_node-a.dmesg")
    assert kinds(evs) == ["xid", "ecc", "ecc", "xid"]
    assert evs[0].detail["xid"] == 79 and evs[0].detail["pci"] == "5d:00"
    assert evs[1].detail["xid"] == 48 and evs[2].detail["xid"] == 63
    assert evs[3].detail == {
        "xid": 13, "pci": "2a:00", "pid": 1202, "process": "python3",
        "message": "Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0): Out Of Range Address",
        "tier": 1,
    }  # fmt: skip


def test_it_reads_syslog_xid_host_oom_and_sxid() -> None:
    evs = events_of("syslog_kernel_node-c.log", year=2024)
    assert kinds(evs) == ["ecc", "oom", "xid"]
    assert evs[0].node == "node-c" and evs[0].detail["xid"] == 94
    assert evs[0].time_utc == datetime(2024, 5, 1, 12, 0, 5, tzinfo=UTC)
    assert evs[1].detail["host_oom"] and evs[1].detail["pid"] == 3302
    assert evs[2].detail["nvswitch"] and evs[2].time_utc == datetime(
        2024, 5, 1, 12, 0, 7, tzinfo=UTC
    )


def test_it_reads_slurm_task_cancel_and_step_lines() -> None:
    evs = events_of("slurm-job.out")
    assert kinds(evs) == ["scheduler"] * 7
    cancel, segv, tasks = evs[0], evs[1], evs[2]
    assert cancel.detail["cause"] == "task failure" and cancel.detail["secondary"]
    assert cancel.time_utc == datetime(2024, 5, 1, 12, 0, 12, 120000, tzinfo=UTC)
    assert segv.rank == 9 and segv.node == "node-c" and not segv.detail["secondary"]
    assert tasks.rank is None and tasks.detail["tasks"] == "8,10-15"
    assert evs[4].detail["cause"] == "time limit" and evs[4].detail["tier"] == 2
    assert evs[5].detail["cause"] == "node failure" and evs[5].detail["tier"] == 0


def test_it_reads_python_tracebacks_gloo_and_signals_behind_srun_labels() -> None:
    evs = events_of("rank-prefixed_python.log")
    by_rank = {e.rank: e for e in evs}
    assert by_rank[9].kind == "oom" and by_rank[9].detail["exc_type"] == "torch.OutOfMemoryError"
    assert by_rank[9].line_no == 6 and by_rank[9].detail["traceback_line"] == 2
    assert by_rank[9].time_utc == datetime(2024, 5, 1, 12, 0, 1, 500000, tzinfo=UTC)
    assert by_rank[10].kind == "nccl_timeout"  # communicator aborted: a consequence
    assert by_rank[11].kind == "gloo" and by_rank[11].detail["peer_ip"] == "10.1.0.13"
    assert by_rank[12].kind == "gloo" and by_rank[12].detail["cause"] == "timeout"
    assert by_rank[13].kind == "gloo"
    assert by_rank[14].kind == "cuda_error"
    r15 = [e for e in evs if e.rank == 15]
    assert [(e.kind, e.detail.get("signal")) for e in r15] == [("signal", 15), ("signal", 11)]
    assert r15[0].secondary and not r15[1].secondary  # SIGTERM waits on others; SIGSEGV crashed


def test_it_reads_the_desync_report_as_naming_the_lagging_rank() -> None:
    evs = events_of("desync_report.log")
    assert kinds(evs) == ["nccl_timeout", "collective_desync"]
    assert evs[1].rank == 1 and evs[1].detail["seq"] == 3


def test_it_reads_nvidia_smi_ecc_counters() -> None:
    evs = events_of("nvidia_smi_q_ecc.txt")
    assert kinds(evs) == ["ecc", "ecc"]  # DRAM Uncorrectable 2, remapping pending


def test_a_bare_pending_yes_under_remapped_rows_is_worded_as_what_it_means() -> None:
    text = (
        "    Remapped Rows\n"
        "        Correctable Error                 : 0\n"
        "        Uncorrectable Error               : 0\n"
        "        Pending                           : Yes\n"
    )
    (ecc,) = normalise_text(text, source="gpu3-q.txt", year=2026)
    assert ecc.kind == "ecc"
    assert ecc.detail["cause"] == "remapped rows pending (a GPU reset is due)"


def test_it_reads_ray_and_mpirun_prefixes() -> None:
    info, body = split_prefixes("(Worker[rank=9] pid=3098846, ip=10.65.5.217) [rank9]:[E129 x] hi")
    assert info == {"rank": 9, "pid": 3098846, "ip": "10.65.5.217"} and body.startswith("[E129")
    info, _ = split_prefixes("[1,7]<stderr>:RuntimeError: CUDA error: x")
    assert info["rank"] == 7
    info, _ = split_prefixes("[default3]:[rank11]: boom")
    assert info == {"local_rank": 3, "rank": 11}
    pg = "[PG ID 5 PG GUID 37(TENSOR_MODEL_PARALLEL_GROUP) Rank 1]"
    e = one(f"{pg} Some NCCL operations have failed or timed out.")
    assert e.rank is None  # `[Rank 1]` of a sub-group is not the global rank


def test_timestamps_in_every_format() -> None:
    def at(line: str) -> datetime | None:
        return parse_line_time(line, year=2024)

    assert at("[2024-05-01 12:00:00,123] x") == datetime(2024, 5, 1, 12, 0, 0, 123000, tzinfo=UTC)
    assert at("2024-05-01T14:00:00+02:00 x") == datetime(2024, 5, 1, 12, tzinfo=UTC)
    assert at("May  1 12:00:00 host kernel: x") == datetime(2024, 5, 1, 12, tzinfo=UTC)
    assert at("[Wed May  1 12:00:00 2024] x") == datetime(2024, 5, 1, 12, tzinfo=UTC)
    assert at("kern  :warn  : 2024-05-01T12:00:00,5+00:00 x") == datetime(
        2024, 5, 1, 12, 0, 0, 500000, tzinfo=UTC
    )
    assert at("[6781741.548779] NVRM: Xid") is None
    assert at("2024-13-45 99:00:00 nonsense") is None


def test_pci_spellings_agree() -> None:
    spellings = ["PCI:0000:9a:00", "00000000:9A:00.0", "0000:9a:00.0", "9a000", "9a:00"]
    assert {pci_key(s) for s in spellings} == {"9a:00"}
    assert pci_key("zz:zz") is None


@FUZZ
@given(st.text(max_size=3000))
def test_arbitrary_text_never_crashes_the_normaliser(text: str) -> None:
    normalise_text(text, source="fuzz", year=2024)


_FRAGMENTS = [
    "[rank3]:", " 7: ", "Traceback (most recent call last):\n", "  File x\n", "Failures:\n",
    "Root Cause (first observed failure):\n", "[0]:\n", "  rank : x\n", "NVRM: Xid (PCI:0000:",
    "): 79, ", "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=", "NCCL WARN ",
    "srun: error: ", "CANCELLED AT ", "exitcode : -", "\n", "2024-05-01T12:00:00", "E0501 ",
    "gloo", "Connection closed by peer [", "rank ", " nranks ", " busId ", "Init COMPLETE",
]  # fmt: skip


@FUZZ
@given(st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=12)), max_size=60))
def test_log_shaped_garbage_never_crashes_the_normaliser(parts: list[str]) -> None:
    normalise_text("".join(parts), source="fuzz", year=2024)
