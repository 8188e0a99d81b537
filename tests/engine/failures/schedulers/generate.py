"""Failed runs as Slurm and Kubernetes print them, built line by line in their real formats.

    python tests/engine/failures/schedulers/generate.py [OUT]

Writes tests/data/failures/schedulers/<case>/ (the default OUT). No scheduler runs here: each
line is written in the format the tool prints (srun 23.x `-l` labels right-aligned to the widest
task, slurmstepd's `error:` lines, `dmesg -T` kernel lines, `sacct -P`, `kubectl describe pod`,
`kubectl get pods -o wide`, `kubectl get events`, `kubectl logs --timestamps [--previous]`), with
the one failure each case is about planted on a rank that is neither the first nor the last.
tests/data/failures/README.md says what each case holds and what a careful reader concludes.
"""

from __future__ import annotations

import importlib.util
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

OUT = Path(__file__).resolve().parents[3] / "data" / "failures" / "schedulers"
T0 = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)


def _py(t: datetime) -> str:
    """Python logging's default `asctime`: `2024-05-01 12:00:01,514`."""
    return f"{t:%Y-%m-%d %H:%M:%S},{t.microsecond // 1000:03d}"


def _label(task: int, width: int) -> str:
    return f"{task:>{width}}: "


def _dmesg(t: datetime) -> str:
    return f"[{t:%a %b} {t.day:>2} {t:%H:%M:%S %Y}]"


def _env(job: int, nodelist: str, ntasks: int, per_node: str) -> list[str]:
    """What the batch script echoes before `srun -l`."""
    return [
        f"SLURM_JOB_ID={job}",
        f"SLURM_JOB_NODELIST={nodelist}",
        f"SLURM_NTASKS={ntasks}",
        f"SLURM_TASKS_PER_NODE={per_node}",
        "+ srun -l --kill-on-bad-exit=1 python train.py",
    ]


def _start(ntasks: int, width: int, per_node: int) -> list[str]:
    lines = []
    for task in range(ntasks):
        t = T0 + timedelta(seconds=1, milliseconds=37 * task)
        lines.append(f"{_label(task, width)}{_py(t)} INFO train.py: rank {task}/{ntasks} "
                     f"local_rank {task % per_node} world_size {ntasks}")  # fmt: skip
    return lines


def _steps(first: int, last: int, width: int) -> list[str]:
    return [f"{_label(0, width)}{_py(T0 + timedelta(seconds=5 + step))} INFO train.py: step "
            f"{step} loss {3.1 - step * 0.004:.4f}" for step in range(first, last)]  # fmt: skip


def slurm_cgroup_oom() -> dict[str, str]:
    """Job 4242, 16 tasks on gpu-node-[a-b]; the memory cgroup of task 11 (gpu-node-b) fills."""
    w = 2
    kill = T0 + timedelta(minutes=3, seconds=41, milliseconds=220)
    out = [*_env(4242, "gpu-node-[a-b]", 16, "8(x2)"), *_start(16, w, 8), *_steps(0, 215, w)]
    out += [
        f"{_label(11, w)}{_py(kill - timedelta(seconds=2))} INFO train.py: step 215 "
        "prefetching 48 batches into pinned memory",
        f"{_label(0, w)}{_py(kill - timedelta(milliseconds=900))} INFO train.py: step 215 "
        "loss 2.2360",
        "slurmstepd: error: Detected 1 oom_kill event in StepId=4242.0. Some of the step tasks "
        "have been OOM Killed.",
        "srun: error: gpu-node-b: task 11: Killed",
        "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
        f"slurmstepd: error: *** STEP 4242.0 ON gpu-node-a CANCELLED AT "
        f"{kill + timedelta(seconds=2):%Y-%m-%dT%H:%M:%S} ***",
        "srun: error: gpu-node-a: tasks 0-7: Terminated",
        "srun: error: gpu-node-b: tasks 8-10,12-15: Terminated",
        "srun: Force Terminated StepId=4242.0",
    ]
    pid = 48213
    memcg = "/slurm/uid_1000/job_4242/step_0/task_11"
    dmesg = [
        f"{_dmesg(kill)} python invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, "
        "oom_score_adj=0",
        f"{_dmesg(kill)} CPU: 37 PID: {pid} Comm: python Not tainted 5.15.0-105-generic "
        "#115-Ubuntu",
        f"{_dmesg(kill)} memory: usage 67108864kB, limit 67108864kB, failcnt 18211",
        f"{_dmesg(kill)} Memory cgroup stats for {memcg}:",
        f"{_dmesg(kill)} oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,"
        f"mems_allowed=0-1,oom_memcg=/slurm/uid_1000/job_4242/step_0,task_memcg={memcg},"
        f"task=python,pid={pid},uid=1000",
        f"{_dmesg(kill)} Memory cgroup out of memory: Killed process {pid} (python) "
        "total-vm:98765432kB, anon-rss:66012345kB, file-rss:81234kB, shmem-rss:0kB, UID:1000 "
        "pgtables:131072kB oom_score_adj:0",
    ]
    end = f"{kill + timedelta(seconds=3):%Y-%m-%dT%H:%M:%S}"
    sacct = [
        "JobID|JobName|Partition|State|ExitCode|NodeList|Start|End",
        f"4242|train|gpu|OUT_OF_MEMORY|0:125|gpu-node-[a-b]|2024-05-01T11:59:58|{end}",
        f"4242.batch|batch||OUT_OF_MEMORY|0:125|gpu-node-a|2024-05-01T11:59:58|{end}",
        f"4242.extern|extern||COMPLETED|0:0|gpu-node-[a-b]|2024-05-01T11:59:58|{end}",
        f"4242.0|python||OUT_OF_MEMORY|0:125|gpu-node-[a-b]|2024-05-01T12:00:00|{end}",
    ]
    return {"slurm-4242.out": _text(out), "gpu-node-b/dmesg.txt": _text(dmesg),
            "sacct-4242.txt": _text(sacct)}  # fmt: skip


def slurm_node_failure() -> dict[str, str]:
    """Job 4343, 32 tasks on gpu-node-[a-d]; task 17 (gpu-node-c) hits a CUDA launch failure,
    the other ranks wait in their all-reduce, and the controller declares gpu-node-c failed
    five minutes later (SlurmdTimeout)."""
    w = 2
    fail = T0 + timedelta(minutes=10, seconds=14, milliseconds=512)
    lost = fail + timedelta(minutes=5, seconds=7)
    out = [*_env(4343, "gpu-node-[a-d]", 32, "8(x4)"), *_start(32, w, 8), *_steps(0, 605, w)]
    tb = [
        f"{_py(fail)} ERROR train.py: step 605 failed on rank 17",
        "Traceback (most recent call last):",
        '  File "/workspace/train.py", line 211, in <module>',
        "    main()",
        '  File "/workspace/train.py", line 198, in main',
        "    loss.backward()",
        '  File "/usr/local/lib/python3.10/dist-packages/torch/_tensor.py", line 522, in backward',
        "    torch.autograd.backward(",
        "RuntimeError: CUDA error: unspecified launch failure",
        "CUDA kernel errors might be asynchronously reported at some other API call, so the "
        "stacktrace below might be incorrect.",
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.",
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
    ]
    out += [f"{_label(17, w)}{line}" for line in tb]
    out += [
        "srun: error: gpu-node-c: task 17: Exited with exit code 1",
        "srun: error: Node failure on gpu-node-c",
        "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
        f"slurmstepd: error: *** STEP 4343.0 ON gpu-node-a CANCELLED AT "
        f"{lost:%Y-%m-%dT%H:%M:%S} DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***",
        "srun: error: gpu-node-c: tasks 16,18-23: Killed",
        "srun: error: gpu-node-a: tasks 0-7: Terminated",
        "srun: error: gpu-node-b: tasks 8-15: Terminated",
        "srun: error: gpu-node-d: tasks 24-31: Terminated",
        "srun: Force Terminated StepId=4343.0",
    ]
    end = f"{lost + timedelta(seconds=33):%Y-%m-%dT%H:%M:%S}"
    sacct = [  # `sacct -j 4343 --format=JobID,JobName,Partition,State,ExitCode,NodeList,End`
        "JobID           JobName  Partition      State ExitCode        NodeList "
        "                End ",
        "------------ ---------- ---------- ---------- -------- --------------- "
        "------------------- ",
        f"4343              train        gpu  NODE_FAIL      0:0  gpu-node-[a-d] {end} ",
        f"4343.batch        batch             CANCELLED     0:15      gpu-node-a {end} ",
        f"4343.0           python             NODE_FAIL      1:0  gpu-node-[a-d] {end} ",
    ]
    return {"slurm-4343.out": _text(out), "sacct-4343.txt": _text(sacct)}


def nccl_duplicate_gpu() -> dict[str, str]:
    """Job 4444, 4 tasks on gpu-node-a; the script sets `cuda:(rank % 2)` instead of the local
    rank's GPU, so ranks 0 and 2 (and 1 and 3) share a device and NCCL refuses to initialise."""
    w = 1
    t = T0 + timedelta(seconds=9, milliseconds=311)
    bus = {0: "1a000", 1: "1b000"}
    out = [*_env(4444, "gpu-node-a", 4, "4"), *_start(4, w, 4)]
    out += [f"{_label(r, w)}{_py(t)} INFO train.py: rank {r} using cuda:{r % 2}" for r in range(4)]
    warn = []
    for r in (2, 0, 3, 1):
        peer = (r + 2) % 4
        warn.append(f"{_label(r, w)}gpu-node-a:{2301 + r}:{2388 + r} [{r % 2}] init.cc:946 NCCL "
                    f"WARN Duplicate GPU detected : rank {r} and rank {peer} both on CUDA device "
                    f"{bus[r % 2]}")  # fmt: skip
    out += warn
    for r in (2, 0, 3, 1):
        peer = (r + 2) % 4
        tb = [
            "Traceback (most recent call last):",
            '  File "/workspace/train.py", line 57, in <module>',
            "    dist.barrier(device_ids=[rank % 2])",
            "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
            "NCCLUtils.hpp:275, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL "
            "version 2.20.5",
            "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.",
            "Last error:",
            f"Duplicate GPU detected : rank {r} and rank {peer} both on CUDA device {bus[r % 2]}",
        ]
        out += [f"{_label(r, w)}{line}" for line in tb]
    out += [
        "srun: error: gpu-node-a: tasks 0-3: Exited with exit code 1",
        "srun: Terminating StepId=4444.0",
    ]
    return {"slurm-4444.out": _text(out)}


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


CASES = {
    "slurm_cgroup_oom": slurm_cgroup_oom,
    "slurm_node_failure": slurm_node_failure,
    "nccl_duplicate_gpu": nccl_duplicate_gpu,
}


def main(out: Path) -> None:
    # kube_cases.py sits beside this script, which is run by path, not imported as a package.
    spec = importlib.util.spec_from_file_location(
        "kube_cases", Path(__file__).with_name("kube_cases.py")
    )
    assert spec is not None and spec.loader is not None
    kube = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kube)
    for case, build in {**CASES, **kube.KUBE_CASES}.items():
        for name, text in build().items():
            path = out / case / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
