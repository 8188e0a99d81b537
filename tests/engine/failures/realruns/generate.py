"""Real failed runs as fixtures: torchrun jobs on the CPU build of torch (gloo), one rank failing.

    python tests/engine/failures/realruns/generate.py OUT [CASE ...]

Each case is one job of 2 "nodes" x 2 ranks: two torchrun agents (`--nnodes 2 --node-rank N`)
on this host, rendezvous on 127.0.0.1 only. Each agent's stdout+stderr becomes `node-N.log`, as a
per-node launcher log would (`--tee 3` gives torchrun's `[default<local_rank>]:` prefix). Where
unprivileged user namespaces allow it, each agent runs with its own host name (`node-N`), so the
launcher's `host :` lines name the node as on a real cluster; else they name this host and only
the rank map says which node is which. The rank map is what the launch itself fixed (static
rendezvous: global rank = node_rank * nproc + local_rank), written as the job starts.

`restart` is one agent of 8 ranks run with `--max-restarts 1` and `LOGLEVEL=INFO`, as elastic jobs
usually are: the agent logs each attempt's rendezvous (`restart_count=N`) and the restart itself.
Its attempt 0 fails at rank 2; attempt 1 gets past that step and fails at rank 6. One agent,
because with two a node that only sees the other restart re-joins without counting a restart,
and its workers then cannot find their peers.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

NODES = 2
NPROC = 2
# case → (worker mode, culprit rank). Culprits differ so that no rule can get by on "rank 0".
CASES: dict[str, tuple[str, int]] = {
    "kill9": ("kill9", 3),
    "abort": ("abort", 1),
    "segv": ("segv", 2),
    "missized": ("missized", 3),
    "skip": ("skip", 3),
    "raise": ("raise", 2),
    "restart": ("restart", 6),  # the rank that ends the job; attempt 0 fails at rank 2
}
# case → (nodes, ranks per node, --max-restarts, extra environment) where not the default.
LAYOUT: dict[str, tuple[int, int, int, dict[str, str]]] = {
    "restart": (1, 8, 1, {"LOGLEVEL": "INFO"}),
}
DEFAULT_LAYOUT: tuple[int, int, int, dict[str, str]] = (NODES, NPROC, 0, {})
WORKER = Path(__file__).resolve().parent / "worker.py"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _own_hostnames() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = ["unshare", "--user", "--map-root-user", "--uts", "hostname", "probe"]
    return subprocess.run(probe, capture_output=True, timeout=10).returncode == 0


def _agent_cmd(*, node: int, port: int, case: str, hostnames: bool) -> list[str]:
    mode, culprit = CASES[case]
    nodes, nproc, restarts, _ = LAYOUT.get(case, DEFAULT_LAYOUT)
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--nnodes", str(nodes),
                "--nproc-per-node", str(nproc), "--node-rank", str(node), "--master-addr",
                "127.0.0.1", "--master-port", str(port), "--max-restarts", str(restarts),
                "--tee", "3", str(WORKER), mode, str(culprit)]  # fmt: skip
    if not hostnames:
        return torchrun
    # `exec` keeps the agent as the namespace's first process, so a kill reaches it.
    script = f'hostname node-{node} && exec "$@"'
    return ["unshare", "--user", "--map-root-user", "--uts", "sh", "-c", script, "sh", *torchrun]


def run_case(*, name: str, out: Path, timeout_s: float, hostnames: bool) -> Path:
    """Run one job; its bundle lands in `out/name`. Stragglers are killed after `timeout_s`."""
    nodes, nproc, _, extra_env = LAYOUT.get(name, DEFAULT_LAYOUT)
    bundle = out / name
    shutil.rmtree(bundle, ignore_errors=True)
    (bundle / "fr").mkdir(parents=True)
    rows = ["rank,node,local_rank"]
    rows += [f"{n * nproc + lr},node-{n},{lr}" for n in range(nodes) for lr in range(nproc)]
    (bundle / "rank_map.csv").write_text("\n".join(rows) + "\n")
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "RR_TIMEOUT": "10",
        "TORCH_FR_BUFFER_SIZE": "64",
        "TORCH_FR_DUMP_TEMP_FILE": str(bundle / "fr" / "nccl_trace_rank_"),
        "OMP_NUM_THREADS": "1",
        "GLOO_SOCKET_IFNAME": "lo",
        **extra_env,
    }
    port = _free_port()
    procs: list[subprocess.Popen[bytes]] = []
    for node in range(nodes):
        cmd = _agent_cmd(node=node, port=port, case=name, hostnames=hostnames)
        with open(bundle / f"node-{node}.log", "wb") as log:
            procs.append(subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                                          cwd=bundle, start_new_session=True))  # fmt: skip
    deadline = time.monotonic() + timeout_s
    for p in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
    for p in procs:
        if p.poll() is None:
            # torchrun starts each worker in a session of its own: kill them by ancestry.
            for pid in [*_descendants(p.pid), p.pid]:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            p.wait()
    return bundle


def _descendants(root: int) -> list[int]:
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = [], [root]
    while frontier:
        kids = [pid for pid, ppid in parents.items() if ppid in frontier]
        found += kids
        frontier = kids
    return found


def generate(*, out: Path, cases: list[str], timeout_s: float = 60.0, jobs: int = 2) -> list[Path]:
    hostnames = _own_hostnames()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_case, name=c, out=out, timeout_s=timeout_s,
                               hostnames=hostnames) for c in cases]  # fmt: skip
        return [f.result() for f in futures]


if __name__ == "__main__":
    target = Path(sys.argv[1])
    chosen = sys.argv[2:] or list(CASES)
    start = time.perf_counter()
    for path in generate(out=target, cases=chosen, jobs=int(os.environ.get("RR_JOBS", "2"))):
        print(path, sum(f.stat().st_size for f in path.rglob("*") if f.is_file()), "bytes")
    print(f"{time.perf_counter() - start:.1f} s")
