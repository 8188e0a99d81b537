"""The training script of the real-run fixtures: gloo all_reduces on CPU, one rank fails one way.

`worker.py MODE CULPRIT`. Every rank writes its Flight Recorder dump when it stops (as a job's
exception handler would); a rank killed by a signal writes none, as in production.

`restart` fails differently in each of torchrun's attempts (`TORCHELASTIC_RESTART_COUNT`): in
attempt 0 rank 2 raises at step 4; the restart gets past that step and rank CULPRIT raises at
step 6. Its ranks log their host as training scripts often do (`host=`).
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist

STEPS = 8
FAIL_AT = 4
FIRST_ATTEMPT_CULPRIT = 2
LAST_ATTEMPT_FAIL_AT = 6


def _dump_flight_recorder(rank: int) -> None:
    prefix = os.environ.get("TORCH_FR_DUMP_TEMP_FILE")
    if not prefix:
        return
    data = torch._C._distributed_c10d._dump_fr_trace()
    with open(f"{prefix}{rank}", "wb") as out:
        out.write(data)


def _fail(mode: str, t: torch.Tensor) -> bool:
    """Fail the culprit's step; True when the step's collective is to be skipped."""
    if mode == "kill9":
        os.kill(os.getpid(), signal.SIGKILL)
    elif mode == "abort":
        os.abort()
    elif mode == "segv":
        ctypes.string_at(0)
    elif mode == "raise":
        raise ValueError("batch 4 has no 'input_ids'")
    elif mode == "missized":
        dist.all_reduce(torch.ones(t.numel() // 2))
        return True
    return mode == "skip"


def _restart_step(rank: int, culprit: int, step: int) -> None:
    attempt = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
    if attempt == 0 and rank == FIRST_ATTEMPT_CULPRIT and step == FAIL_AT:
        raise ValueError("batch 4 has no 'input_ids'")
    if attempt > 0 and rank == culprit and step == LAST_ATTEMPT_FAIL_AT:
        raise FloatingPointError(f"loss is nan at step {step}")


def main() -> None:
    mode, culprit = sys.argv[1], int(sys.argv[2])
    timeout = timedelta(seconds=float(os.environ["RR_TIMEOUT"]))
    if mode == "restart":
        # Restarted workers find the agent's store still holding the previous attempt's gloo
        # addresses (same master port): a prefix per attempt keeps the attempts apart.
        attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
        agent = dist.TCPStore(
            os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), is_master=False,
            timeout=timeout,
        )  # fmt: skip
        dist.init_process_group(
            "gloo", store=dist.PrefixStore(f"attempt_{attempt}", agent), timeout=timeout,
            rank=int(os.environ["RANK"]), world_size=int(os.environ["WORLD_SIZE"]),
        )  # fmt: skip
    else:
        dist.init_process_group("gloo", timeout=timeout)
    rank = dist.get_rank()
    t = torch.ones(4096)
    try:
        for step in range(STEPS):
            if mode == "restart":
                print(f"step {step} rank {rank} host={socket.gethostname()}", flush=True)
                _restart_step(rank, culprit, step)
            else:
                print(f"step {step} rank {rank}", flush=True)
            if rank == culprit and step == FAIL_AT and _fail(mode, t):
                continue
            dist.all_reduce(t)
            time.sleep(0.05)
    finally:
        _dump_flight_recorder(rank)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
