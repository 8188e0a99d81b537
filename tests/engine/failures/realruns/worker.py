"""The training script of the real-run fixtures: gloo all_reduces on CPU, one rank fails one way.

`worker.py MODE CULPRIT`. Every rank writes its Flight Recorder dump when it stops (as a job's
exception handler would); a rank killed by a signal writes none, as in production.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist

STEPS = 8
FAIL_AT = 4


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


def main() -> None:
    mode, culprit = sys.argv[1], int(sys.argv[2])
    dist.init_process_group("gloo", timeout=timedelta(seconds=float(os.environ["RR_TIMEOUT"])))
    rank = dist.get_rank()
    t = torch.ones(4096)
    try:
        for step in range(STEPS):
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
