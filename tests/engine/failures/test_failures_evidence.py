"""Evidence classes that launchers, schedulers and broken dumps produce."""

from __future__ import annotations

import pickle

import pytest
from failures_helpers import one

from engine.failures import SourceFile, analyse
from engine.failures.synthetic import flight_recorder

MAP = SourceFile("rank_map.csv", b"rank,node,local_rank\n0,node-0,0\n1,node-0,1\n2,node-1,0\n"
                 b"3,node-1,1\n")  # fmt: skip


@pytest.mark.parametrize(
    ("line", "signal"),
    [
        ("srun: error: node-1: task 3: Killed", 9),
        ("srun: error: node-1: task 3: Aborted (core dumped)", 6),
        ("srun: error: node-1: task 3: Segmentation fault (core dumped)", 11),
        ("srun: error: node-1: task 3: Bus error", 7),
        ("srun: error: node-1: task 3: Terminated", 15),
    ],
)
def test_slurm_names_the_signal_a_task_died_of(line: str, signal: int) -> None:
    e = one(line)
    assert (e.kind, e.rank, e.node, e.detail["signal"]) == ("scheduler", 3, "node-1", signal)


def test_slurm_exit_code_and_kubernetes_status_and_faulthandler() -> None:
    assert one("srun: error: node-1: task 3: Exited with exit code 2").detail["exitcode"] == 2
    assert one("    Exit Code:    137").detail["signal"] == 9
    assert one("Fatal Python error: Segmentation fault").detail["signal"] == 11
    oom = one("    Reason:       OOMKilled")
    assert oom.kind == "oom" and oom.detail["limit"]


def test_a_terminate_from_the_watchdog_is_a_consequence_and_gloos_enforce_is_not() -> None:
    watchdog = one("terminate called after throwing an instance of 'c10::DistBackendError'")
    gloo = one("[default1]:terminate called after throwing an instance of 'gloo::EnforceNotMet'")
    assert watchdog.kind == gloo.kind == "cpp_terminate"
    assert watchdog.secondary and not gloo.secondary
    assert gloo.detail["local_rank"] == 1 and gloo.rank is None


def test_gloos_size_mismatch_is_a_collective_error() -> None:
    e = one("[default1]:  what():  [enforce fail at pair.cc:456] op.preamble.length <= op.nbytes. "
            "2048 vs 1024. Received data size doesn't match expected size. Is there a "
            "distributed collective mismatch in your code?")  # fmt: skip
    assert e.kind == "collective_error" and e.detail["tier"] == 1


def _timeout(rank: int, seq: int) -> str:
    return (f"[rank{rank}]:[E1120 10:30:12.000000 4242 ProcessGroupNCCL.cpp:632] [Rank {rank}] "
            f"Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, "
            "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600040 "
            "milliseconds before timing out.")  # fmt: skip


def test_watchdogs_that_disagree_on_seqnum_name_the_lowest() -> None:
    text = "\n".join(_timeout(r, 41 if r == 6 else 42) for r in range(8)) + "\n"
    a = analyse([SourceFile("job.log", text.encode())], year=2024)
    assert a.initiating_rank == 6 and a.first_failure.kind == "collective_desync"
    assert a.first_failure.detail["from"] == "watchdog SeqNum"
    assert a.suggested_owner == "customer"


def test_the_nccl_debug_prefix_names_the_host_and_the_rank_map_the_rank() -> None:
    line = "node-1:4242:4300 [1] transport/net_ib.cc:2453 NCCL WARN NET/IB: Got completion from "
    line += "peer 10.0.0.2<51161> with status=12 opcode=0 len=0 vendor err 129 (Recv)\n"
    a = analyse([MAP, SourceFile("job.log", line.encode())], year=2024)
    assert (a.initiating_rank, a.initiating_node) == (3, "node-1")


def _death(rank: int, code: int, sig: str) -> str:
    node = f"node-{rank // 2}"
    return (f"Root Cause (first observed failure):\n[0]:\n  time      : 2024-05-01_12:00:05\n"
            f"  host      : {node}\n  rank      : {rank} (local_rank: {rank % 2})\n"
            f"  exitcode  : {code} (pid: 900{rank})  ({sig})\n  error_file: <N/A>\n")  # fmt: skip


@pytest.mark.parametrize(
    ("kernel", "owner"),
    [
        ("Memory cgroup out of memory: Killed process 9003 (python) total-vm:1kB", "customer"),
        ("Out of memory: Killed process 777 (dcgm-exporter) total-vm:1kB", "provider"),
        ("", "undetermined"),
    ],
)
def test_sigkill_owner_follows_the_memory_evidence(kernel: str, owner: str) -> None:
    files = [MAP, SourceFile("node-1.log", _death(3, -9, "SIGKILL").encode())]
    if kernel:
        line = f"2024-05-01T12:00:04,000000+00:00 node-1 kernel: {kernel}\n"
        files.append(SourceFile("kernel/node-1/dmesg.log", line.encode()))
    a = analyse(files, year=2024)
    assert a.initiating_rank == 3 and a.suggested_owner == owner, a.owner_reasons


def test_sigsegv_next_to_an_xid_on_that_gpu_is_the_providers() -> None:
    xid = ("2024-05-01T12:00:04,000000+00:00 node-1 kernel: NVRM: Xid (PCI:0000:18:00): 79, "
           "pid=9003, name=python, GPU has fallen off the bus.\n")  # fmt: skip
    files = [MAP, SourceFile("node-1.log", _death(3, -11, "SIGSEGV").encode()),
             SourceFile("kernel/node-1/dmesg.log", xid.encode())]  # fmt: skip
    a = analyse(files, year=2024)
    assert a.initiating_node == "node-1" and a.suggested_owner == "provider"
    assert a.owner_reasons[0] == "Xid 79 on node-1", a.owner_reasons


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("[Sun Feb 23 16:24:18 2025] NVRM: Xid (PCI:0000:9b:00): 119, pid=2024380, "
         "name=nvidia-smi, Timeout after 6s of waiting for RPC response from GPU4 GSP!", "Xid 119"),
        ("[Fri Nov 15 12:02:03 2024] NVRM: Xid (PCI:0000:19:00): 48, pid='<unknown>', "
         "name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in "
         "the framebuffer at partition 0, subpartition 0.", "Xid 48 (ECC)"),
    ],
)  # fmt: skip
def test_a_kernel_log_alone_names_the_fault_and_says_the_node_is_unknown(
    line: str, reason: str
) -> None:
    a = analyse([SourceFile("dmesg.txt", (line + "\n").encode())], year=2025)
    assert a.suggested_owner == "provider"
    assert a.owner_reasons[0] == f"{reason} on a node the evidence does not name"


def test_an_empty_or_truncated_dump_is_incomplete_never_clean() -> None:
    dumps = flight_recorder(ranks=4, entries=5)
    cut = [SourceFile(d.name, d.data[: len(d.data) // 2]) for d in dumps[1:2]]
    a = analyse([dumps[0], *cut, SourceFile("fr/nccl_trace_rank_2", b""), dumps[3]])
    assert a.incomplete_dumps == [1, 2] and a.missing_dumps == []
    assert a.flight_recorder == "hang" and a.first_failure is None
    assert any("rank 2 is incomplete: empty file" in m for m in a.missing)
    only_broken = analyse([SourceFile("fr/nccl_trace_rank_0", b"")])
    assert only_broken.flight_recorder == "incomplete"
    assert analyse([SourceFile("x.log", b"hello\n")]).flight_recorder == "absent"


def _dump(rank: int, seqs: int, **shape: object) -> SourceFile:
    entries = [{"seq_id" if shape.get("old") else "collective_seq_id": s,
                "process_group": shape.get("pg", ("0", "default_pg")), "pg_id": 0,
                "profiling_name": "gloo:all_reduce", "input_sizes": [[4]], "state": "scheduled"}
               for s in range(1, seqs + 1)]  # fmt: skip
    cfg = shape.get("cfg", {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1, 2, 3]"}})
    dump = {"version": "x", "pg_config": cfg, "entries": [*entries, "not an entry"]}
    return SourceFile(f"fr/nccl_trace_rank_{rank}", pickle.dumps(dump, protocol=2))


@pytest.mark.parametrize(
    "shape",
    [
        {"pg": ["", ""], "cfg": {"": {"name": "", "desc": "", "ranks": "[0, 1, 2, 3]"}}},  # gloo
        {"pg": ["0", "default_pg"], "cfg": {0: {"desc": "default_pg", "ranks": [0, 1, 2, 3]}}},
        {"pg": "0", "old": True, "cfg": None},
    ],
)
def test_dumps_of_other_versions_are_read_as_far_as_they_go(shape: dict[str, object]) -> None:
    a = analyse([_dump(r, 6 if r == 2 else 7, **shape) for r in range(4)])
    assert a.initiating_rank == 2 and a.flight_recorder == "desync"
