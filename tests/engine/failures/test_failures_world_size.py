"""The world size is what the job's own records state, not the number of ranks whose logs
happen to be in the bundle: a bundle with one node's log of a two-node job lacks eight ranks,
and saying so is the point.

The lines keep the shapes NCCL and PyTorch print: NCCL's `comm 0x… rank 3 nranks 16 cudaDev 3
nvmlDev 3 busId 5d000 commId 0x… - Init COMPLETE` (2.10 prints no `nvmlDev` nor `commId`, as
in the Jean Zay sample), NCCL 2.19+'s `comm 0x… rank 6 nRanks 8 nNodes 1 localRanks 8
localRank 6 MNNVL 0` and `ncclCommSplit comm 0x… rank 0 nranks 2 … parent 0x… splitCount 1
color … key 0- Init START`, PyTorch's `[PG ID 0 PG GUID 0(default_pg) Rank 1]
ProcessGroupNCCL initialization options: size: 16, global rank: 1, …`, and the watchdog's
`[rank3]:[E628 09:54:15.885613614 ProcessGroupNCCL.cpp:632] [Rank 3] Watchdog caught …`.
"""

from __future__ import annotations

import pytest

from engine.failures import SourceFile, analyse
from engine.failures.cli import render
from engine.failures.scheduler import read_scheduler

_BUS = ("18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000")


def _watchdog(rank: int, seq: int = 412) -> str:
    return (
        f"[rank{rank}]:[E628 09:54:15.88{rank}613614 ProcessGroupNCCL.cpp:632] [Rank {rank}] "
        f"Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, "
        "OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=600000) ran for "
        "600041 milliseconds before timing out."
    )


def _node_a(init: str) -> bytes:
    """Node a's log of a 2 × 8 rank job: ranks 0–7's NCCL init lines and their timeouts."""
    lines = [
        f"gpu-node-a:{2051 + r}:{2190 + r} [{r}] NCCL INFO "
        + init.format(rank=r, bus=_BUS[r], ptr=f"0x55d4a0c2b{r}f0")
        for r in range(8)
    ]
    return "\n".join([*lines, *(_watchdog(r) for r in range(8))]).encode() + b"\n"


_COMPLETE = (
    "comm {ptr} rank {rank} nranks 16 cudaDev {rank} nvmlDev {rank} busId {bus} "
    "commId 0x7c1f3a9e2b4d6f80 - Init COMPLETE"
)
_COMPLETE_2_10 = "comm {ptr} rank {rank} nranks 16 cudaDev {rank} busId {bus} - Init COMPLETE"
_NRANKS_2_19 = "comm {ptr} rank {rank} nRanks 16 nNodes 2 localRanks 8 localRank {rank} MNNVL 0"


@pytest.mark.parametrize("init", [_COMPLETE, _COMPLETE_2_10, _NRANKS_2_19])
def test_one_node_s_log_of_a_two_node_job_names_the_eight_ranks_it_lacks(init: str) -> None:
    a = analyse([SourceFile("gpu-node-a.log", _node_a(init))], year=2026)
    assert a.world_size == 16, a.world_from
    assert a.world_from == "stated by NCCL's init lines"
    assert a.missing_ranks == list(range(8, 16))
    assert "no log or dump for rank 15" in a.missing
    text = render(a)
    assert "World size: 16 (stated by NCCL's init lines)" in text
    assert a.to_json()["world_size_from"] == "stated by NCCL's init lines"


def test_a_split_communicator_s_size_is_not_the_world_s() -> None:
    # The data-parallel groups of a 2 × 8 job: each split from the world, two ranks each.
    split = [
        f"gpu-node-a:{2051 + r}:{2190 + r} [{r}] NCCL INFO ncclCommSplit comm 0x55bde656e4{r}0 "
        f"rank 0 nranks 2 cudaDev {r} nvmlDev {r} busId {_BUS[r]} parent 0x55bde5d092d{r} "
        f"splitCount 1 color 92330477{r} key 0- Init START\n"
        f"gpu-node-a:{2051 + r}:{2190 + r} [{r}] NCCL INFO comm 0x55bde656e4{r}0 rank 0 "
        f"nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0"
        for r in range(8)
    ]
    text = "\n".join([*split, *(_watchdog(r) for r in range(8))]) + "\n"
    a = analyse([SourceFile("gpu-node-a.log", text.encode())], year=2026)
    assert a.world_size != 2 and a.world_size is None
    # With PyTorch's line for the default process group (and a sub-group's), the size is known.
    pg = (
        "[rank0]:I0628 09:20:01.495619 2051 ProcessGroupNCCL.cpp:905] [PG ID 0 PG GUID "
        "0(default_pg) Rank 0] ProcessGroupNCCL initialization options: size: 16, global rank: "
        "0, TIMEOUT(ms): 600000, USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0, SPLIT_COLOR: 0, "
        "PG Name: 0\n"
        "[rank0]:I0628 09:20:02.101353 2051 ProcessGroupNCCL.cpp:905] [PG ID 1 PG GUID 1 Rank "
        "0] ProcessGroupNCCL initialization options: size: 2, global rank: 0, TIMEOUT(ms): "
        "600000, USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0, SPLIT_COLOR: 0, PG Name: 1\n"
    )
    a = analyse([SourceFile("gpu-node-a.log", (pg + text).encode())], year=2026)
    assert a.world_size == 16
    assert a.missing_ranks == list(range(8, 16))


def test_torchrun_s_node_count_is_not_the_world_size() -> None:
    # torchrun's rendezvous result: `group_world_size` counts agents (nodes), not ranks.
    rendezvous = (
        "[default] Rendezvous complete for workers. Result:\n  restart_count=0\n"
        "  master_addr=gpu-node-a\n  master_port=29500\n  group_rank=0\n  group_world_size=2\n"
        "  local_ranks=[0, 1, 2, 3, 4, 5, 6, 7]\n  role_ranks=[0, 1, 2, 3, 4, 5, 6, 7]\n"
        "  global_ranks=[0, 1, 2, 3, 4, 5, 6, 7]\n"
        "  role_world_sizes=[16, 16, 16, 16, 16, 16, 16, 16]\n"
        "  global_world_sizes=[16, 16, 16, 16, 16, 16, 16, 16]\n"
    )
    text = rendezvous + "\n".join(_watchdog(r) for r in range(8)) + "\n"
    a = analyse([SourceFile("gpu-node-a.log", text.encode())], year=2026)
    assert a.world_size == 16
    assert a.missing_ranks == list(range(8, 16))


@pytest.mark.parametrize(
    ("line", "size"),
    [
        ("+ srun --nodes=2 --ntasks=16 --ntasks-per-node=8 python train.py\n", 16),
        ("+ srun -N 2 -n 16 python train.py\n", 16),
        ("#SBATCH --ntasks=32\n", 32),
        ("#SBATCH --ntasks-per-node=8\n", None),
    ],
)
def test_slurm_s_task_count_from_the_command_line(line: str, size: int | None) -> None:
    assert read_scheduler([("slurm-412.out", line)]).world_size() == size


def test_a_rank_past_the_stated_size_means_the_size_was_not_the_world_s() -> None:
    text = "WORLD_SIZE=4 RANK=0\n" + "\n".join(_watchdog(r) for r in (0, 6)) + "\n"
    a = analyse([SourceFile("job.log", text.encode())], year=2026)
    assert a.world_size == 7
    assert a.world_from.startswith("rank 6 is in the logs, past the 4 ranks")
