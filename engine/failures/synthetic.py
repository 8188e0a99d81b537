"""Synthetic failed runs at production shape, for tests and the benchmark (never real data).

`cascade(...)` builds what a torchrun + Slurm job leaves behind when one GPU fails: per-node logs
with `[rankN]:` prefixes and NCCL INFO init lines, a kernel log with the Xid on the culprit's
node, watchdog timeouts on every other rank, torchrun's ChildFailedError naming node 0's local
rank 0, and Slurm's cancel. `flight_recorder(...)` builds per-rank dumps.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from .model import SourceFile

T0 = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)
_BUS = ("18", "2a", "3a", "5d", "9a", "ab", "ba", "db")


@dataclass
class Scenario:
    ranks: int = 512
    gpus_per_node: int = 8
    culprit: int = 137
    failure: str = "xid"  # xid | ib | oom | exception | gloo | silent
    noise_lines_per_rank: int = 0
    timeout_ms: int = 10_000
    skew_s: dict[str, float] = field(default_factory=dict)  # node → its clock's error
    launcher_root_rank: int = 0
    rival: int | None = None  # a rank that logs a transport error `rival_after_s` later
    rival_after_s: float = 10.0
    rank_map_file: bool = False
    kernel_logs: bool = True

    def node(self, rank: int) -> str:
        return f"node-{rank // self.gpus_per_node}"

    def ip(self, rank: int) -> str:
        n = rank // self.gpus_per_node
        return f"10.0.{n // 250}.{n % 250 + 1}"


def _glog(level: str, when: datetime) -> str:
    return f"{level}{when.month:02d}{when.day:02d} {when:%H:%M:%S}.{when.microsecond:06d}"


def cascade(s: Scenario) -> list[SourceFile]:
    """One log per node, one kernel log for the culprit's node, a Slurm log, optional rank map."""
    nodes = (s.ranks + s.gpus_per_node - 1) // s.gpus_per_node
    out: list[SourceFile] = []
    for n in range(nodes):
        node = f"node-{n}"
        shift = timedelta(seconds=s.skew_s.get(node, 0.0))
        out.append(SourceFile(f"logs/{node}.log", _node_log(s, n, shift).encode()))
    culprit_node = s.node(s.culprit)
    shift = timedelta(seconds=s.skew_s.get(culprit_node, 0.0))
    if s.kernel_logs and s.failure in ("xid", "oom", "gloo"):
        out.append(SourceFile(f"kernel/{culprit_node}/dmesg.log", _kernel(s, shift).encode()))
    out.append(SourceFile("slurm-4242.out", _slurm(s).encode()))
    if s.rank_map_file:
        rows = ["rank,node,local_rank,pci_bus_id"]
        for r in range(s.ranks):
            local = r % s.gpus_per_node
            rows.append(f"{r},{s.node(r)},{local},00000000:{_BUS[local % 8]}:00.0")
        out.append(SourceFile("rank_map.csv", ("\n".join(rows) + "\n").encode()))
    return out


def _node_log(s: Scenario, n: int, shift: timedelta) -> str:
    first, last = n * s.gpus_per_node, min((n + 1) * s.gpus_per_node, s.ranks)
    lines = _init_lines(s, n, first, last) + _chatter(s, first, last, shift)
    fail = T0 + shift
    for r in range(first, last):
        if r == s.culprit:
            lines += _culprit_lines(s, r, fail)
        elif r == s.rival:
            when = fail + timedelta(seconds=s.rival_after_s)
            lines.append(
                f"[{when:%Y-%m-%d %H:%M:%S}] node-{n}:{40000 + r}:{41000 + r} [{r - first}] "
                "transport/net_ib.cc:2453 NCCL WARN NET/IB: Got completion from peer "
                "10.9.9.9<51161> with status=12 opcode=0 len=0 vendor err 129 (Recv)"
            )
        elif s.failure == "gloo" or s.failure == "silent":
            lines += _lost_peer_lines(s, r, fail)
        else:
            lines += _timeout_lines(s, r, fail)
    if n == s.launcher_root_rank // s.gpus_per_node:
        lines += _child_failed(s, first, last, fail + timedelta(seconds=s.timeout_ms / 1000 + 5))
    return "\n".join(lines) + "\n"


def _init_lines(s: Scenario, n: int, first: int, last: int) -> list[str]:
    """NCCL's bootstrap and init lines: each rank's IP, device and bus id."""
    lines: list[str] = []
    for r in range(first, last):
        local, pid = r - first, 40000 + r
        lines.append(f"node-{n}:{pid}:{pid} [{local}] NCCL INFO Bootstrap : Using ib0:{s.ip(r)}<0>")
        lines.append(
            f"node-{n}:{pid}:{pid} [{local}] NCCL INFO ncclCommInitRank comm 0x55{r:08x} rank {r} "
            f"nranks {s.ranks} cudaDev {local} nvmlDev {local} busId {_BUS[local % 8]}000 "
            f"commId 0x1234abcd - Init COMPLETE"
        )
    return lines


def _chatter(s: Scenario, first: int, last: int, shift: timedelta) -> list[str]:
    """Training-loop lines before the failure, `noise_lines_per_rank` per rank."""
    lines: list[str] = []
    start = T0 - timedelta(minutes=30)
    for i in range(s.noise_lines_per_rank):
        when = start + timedelta(seconds=i * 0.9) + shift
        for r in range(first, last):
            lines.append(
                f"[rank{r}]:[{_glog('I', when)} train.py:212] step {i} | loss "
                f"{2.5 - i * 1e-4:.4f} | lr 3.0e-04 | tokens/s {123456 + r} | grad_norm 0.81"
            )
    return lines


def _lost_peer_lines(s: Scenario, r: int, fail: datetime) -> list[str]:
    """A healthy rank under gloo: its collective fails when the culprit's connection closes."""
    when = fail + timedelta(seconds=2, milliseconds=r % 500)
    return [
        f"[rank{r}]:[{_glog('E', when)} train.py:88] collective failed",
        f"[rank{r}]: Traceback (most recent call last):",
        f'[rank{r}]:   File "train.py", line 88, in <module>',
        f"[rank{r}]:     dist.all_reduce(t)",
        f"[rank{r}]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] "
        f"Connection closed by peer [{s.ip(s.culprit)}]:40123",
    ]


def _timeout_lines(s: Scenario, r: int, fail: datetime) -> list[str]:
    """A healthy rank under NCCL: the watchdog times out waiting for the culprit."""
    ran = s.timeout_ms + 40 + (r * 7) % 900
    work = (
        f"WorkNCCL(SeqNum=4242, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, "
        f"Timeout(ms)={s.timeout_ms}) ran for {ran} milliseconds before timing out."
    )
    ts = _glog("E", fail + timedelta(milliseconds=ran))
    return [
        f"[rank{r}]:[{ts} ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught "
        f"collective operation timeout: {work}",
        f"[rank{r}]:[{ts} ProcessGroupNCCL.cpp:2271] [PG ID 0 PG GUID 0(default_pg) "
        f"Rank {r}]  failure detected by watchdog at work sequence id: 4242 PG status: "
        f"last enqueued work: 4242, last completed work: 4241",
        f"[rank{r}]:[{ts} ProcessGroupNCCL.cpp:1664] [Rank {r}] Some NCCL operations "
        "have failed or timed out. Due to the asynchronous nature of CUDA kernels, "
        "subsequent GPU operations might run on corrupted/incomplete data.",
        "terminate called after throwing an instance of 'c10::DistBackendError'",
        f"  what():  [PG ID 0 PG GUID 0(default_pg) Rank {r}] Process group watchdog "
        f"thread terminated with exception: [Rank {r}] Watchdog caught collective "
        f"operation timeout: {work}",
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x9d",
    ]


def _culprit_lines(s: Scenario, r: int, fail: datetime) -> list[str]:
    local, node = r % s.gpus_per_node, s.node(r)
    ts = _glog("E", fail + timedelta(milliseconds=350))
    if s.failure == "xid":
        return [
            f"[rank{r}]:[{ts} ProcessGroupNCCL.cpp:1664] [PG ID 0 PG GUID 0(default_pg) Rank "
            f"{r}] Process group watchdog thread terminated with exception: CUDA error: "
            "unspecified launch failure",
            f"[rank{r}]: Traceback (most recent call last):",
            f'[rank{r}]:   File "train.py", line 140, in <module>',
            f"[rank{r}]:     loss.backward()",
            f"[rank{r}]: RuntimeError: CUDA error: unspecified launch failure",
        ]
    if s.failure == "ib":
        stamp = f"[{fail:%Y-%m-%d %H:%M:%S}] "
        return [
            f"{stamp}{node}:{40000 + r}:{41000 + r} [{local}] transport/net_ib.cc:2453 "
            "NCCL WARN NET/IB: "
            f"Got completion from peer {s.ip((r + s.gpus_per_node) % s.ranks)}<51161> with "
            f"status=12 opcode=0 len=0 vendor err 129 (Recv) hca mlx5_{local}",
            f"{node}:{40000 + r}:{41000 + r} [{local}] NCCL INFO transport/net.cc:1134 -> 6",
            f"[rank{r}]:[{ts} ProcessGroupNCCL.cpp:1664] [Rank {r}] NCCL error: remote process "
            "exited or there was a network error, NCCL version 2.21.5",
        ]
    if s.failure == "exception":
        return [
            f"[rank{r}]:[{ts} train.py:140] computing loss",
            f"[rank{r}]: Traceback (most recent call last):",
            f'[rank{r}]:   File "train.py", line 140, in <module>',
            f"[rank{r}]:     batch = next(loader)",
            f"[rank{r}]: KeyError: 'input_ids'",
        ]
    if s.failure in ("oom", "gloo"):
        return [f"[rank{r}]:[{_glog('I', fail - timedelta(seconds=1))} train.py:212] step 9999"]
    return []


def _kernel(s: Scenario, shift: timedelta) -> str:
    local = s.culprit % s.gpus_per_node
    when = T0 + shift + timedelta(milliseconds=100)
    iso = f"{when:%Y-%m-%dT%H:%M:%S},{when.microsecond:06d}+00:00"
    if s.failure in ("oom", "gloo"):
        return (
            f"{iso} python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE)\n"
            f"{iso} Out of memory: Killed process {40000 + s.culprit} (python3) total-vm:812345kB\n"
        )
    bus = _BUS[local % 8]
    return (
        f"{iso} NVRM: GPU at PCI:0000:{bus}:00: GPU-0000-1111\n"
        f"{iso} NVRM: Xid (PCI:0000:{bus}:00): 79, pid='<unknown>', name=<unknown>, GPU has "
        "fallen off the bus.\n"
        f"{iso} NVRM: GPU 0000:{bus}:00.0: GPU has fallen off the bus.\n"
    )


def _child_failed(s: Scenario, first: int, last: int, when: datetime) -> list[str]:
    stamp = f"{when:%Y-%m-%d_%H:%M:%S}"

    def entry(i: int, r: int) -> list[str]:
        return [
            f"[{i}]:",
            f"  time      : {stamp}",
            f"  host      : {s.node(r)}",
            f"  rank      : {r} (local_rank: {r - first})",
            f"  exitcode  : -6 (pid: {40000 + r})",
            "  error_file: <N/A>",
            f"  traceback : Signal 6 (SIGABRT) received by PID {40000 + r}",
        ]

    root = s.launcher_root_rank
    lines = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 54,
             "train.py FAILED", "-" * 54, "Failures:"]  # fmt: skip
    for i, r in enumerate(r for r in range(first, last) if r != root):
        lines += entry(i + 1, r)
    lines += ["-" * 54, "Root Cause (first observed failure):", *entry(0, root), "=" * 54]
    return lines


def _slurm(s: Scenario) -> str:
    when = T0 + timedelta(seconds=s.timeout_ms / 1000 + 8)
    node0 = s.node(0)
    return (
        f"srun: error: {s.node(s.culprit)}: task {s.culprit}: Exited with exit code 1\n"
        "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"
        f"slurmstepd: error: *** STEP 4242.0 ON {node0} CANCELLED AT "
        f"{when:%Y-%m-%dT%H:%M:%S} ***\n"
    )


def flight_recorder(
    *,
    ranks: int,
    entries: int = 200,
    culprit: int | None = None,
    missing: tuple[int, ...] = (),
    mismatch_at: int | None = None,
    json_ranks: tuple[int, ...] = (),
    prefix: str = "nccl_trace_rank_",
) -> list[SourceFile]:
    """Per-rank dumps: everyone completed seq 1..entries-1 and entered `entries`, except the
    culprit, which never enqueued it (or, with `mismatch_at`, sent a different size there)."""
    return list(iter_flight_recorder(ranks=ranks, entries=entries, culprit=culprit,
                                     missing=missing, mismatch_at=mismatch_at,
                                     json_ranks=json_ranks, prefix=prefix))  # fmt: skip


def iter_flight_recorder(
    *,
    ranks: int,
    entries: int = 200,
    culprit: int | None = None,
    missing: tuple[int, ...] = (),
    mismatch_at: int | None = None,
    json_ranks: tuple[int, ...] = (),
    prefix: str = "nccl_trace_rank_",
) -> Iterator[SourceFile]:
    """`flight_recorder`, one dump at a time (16,384 dumps do not fit in memory together)."""
    base_ns = int(T0.timestamp() * 1e9) - entries * 1_000_000_000
    pg_config = {"0": {"name": "0", "desc": "default_pg", "ranks": str(list(range(ranks)))}}
    for r in range(ranks):
        if r in missing:
            continue
        last = entries - 1 if (r == culprit and mismatch_at is None) else entries
        items: list[dict[str, Any]] = []
        for seq in range(max(1, last - entries + 1), last + 1):
            size = [[1024, 1024]]
            if r == culprit and seq == mismatch_at:
                size = [[1024, 512]]
            items.append({
                "frames": [{"name": "train_step", "filename": "train.py", "line": 140}],
                "record_id": seq - 1, "pg_id": 0, "process_group": ("0", "default_pg"),
                "collective_seq_id": seq, "p2p_seq_id": 0, "op_id": seq,
                "profiling_name": "nccl:all_reduce", "time_created_ns": base_ns + seq * 10**9,
                "input_sizes": size, "input_dtypes": ["Float"], "output_sizes": size,
                "output_dtypes": ["Float"],
                "state": "completed" if seq < entries else "started",
                "time_discovered_started_ns": None,
                "time_discovered_completed_ns": base_ns + seq * 10**9 + 5000,
                "retired": seq < entries, "timeout_ms": 600000, "is_p2p": False,
            })  # fmt: skip
        done = last if last < entries else entries - 1
        dump = {
            "version": "2.5",
            "pg_config": pg_config,
            "pg_status": {
                "0": {
                    "last_enqueued_collective": last,
                    "last_started_collective": last,
                    "last_completed_collective": done,
                }
            },
            "entries": items,
        }
        if r in json_ranks:
            payload = json.dumps(dump).encode()
            yield SourceFile(f"fr/{prefix}{r}.json", payload)
        else:
            yield SourceFile(f"fr/{prefix}{r}", pickle.dumps(dump, protocol=4))
