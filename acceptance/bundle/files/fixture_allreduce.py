#!/usr/bin/env python3
"""Clusterbid acceptance fixture: rank-sum all-reduce.

Every worker fills an integer tensor with its rank; after a sum all-reduce each element must
equal n(n-1)/2 for n workers. Each worker prints one JSON line (or appends it to --out).

Launch with torchrun (RANK/WORLD_SIZE/LOCAL_RANK/MASTER_ADDR/MASTER_PORT), with srun
(SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID are used when RANK etc. are unset), or locally with
--spawn N --backend gloo for a CPU dry run. Exit status is non-zero when any rank fails.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import socket
import ssl
import sys
import time
import urllib.request
from datetime import timedelta
from typing import Any

# Values rendered from fixture.json by Clusterbid; the command line overrides each of them.
DEFAULT_COUNT = int("@@{count}")
DEFAULT_DTYPE = "@@{dtype}"
DEFAULT_ITERATIONS = int("@@{iterations}")
DEFAULT_CHECK_ITERATIONS = int("@@{check_iterations}")
FIXTURE_SHA256 = "@@{fixture_sha256}"
# What the launcher knows and a worker cannot see for itself (the image it started, the node's
# OS image, the cluster's Kubernetes version and worker node type): each record carries it when
# the launcher exports it, and the checks compare it with the fixture's runtime, node by node.
LAUNCHER_KEYS = {
    "container_image": "CLUSTERBID_CONTAINER_IMAGE",
    "os_image": "CLUSTERBID_OS_IMAGE",
    "kubernetes_version": "CLUSTERBID_KUBERNETES_VERSION",
    "worker_node_spec": "CLUSTERBID_WORKER_NODE_SPEC",
}
# The launch files run `--node-facts` on every node before the workers start and export what it
# prints: the values read on the node itself, never the agreed ones (a copy of the fixture would
# pass its own check). The agreed values travel as CLUSTERBID_AGREED_*, only to warn early.
NODE_FACTS = ("os_image", "kubernetes_version", "worker_node_spec")
SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount"
INSTANCE_TYPE_LABELS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")

EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("nccl", "gloo"), default="nccl")
    parser.add_argument("--count", type=int, default=DEFAULT_COUNT)
    parser.add_argument("--dtype", choices=("int32", "int64"), default=DEFAULT_DTYPE)
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
    parser.add_argument(
        "--check-iterations",
        type=int,
        default=None,
        help="how many of the last iterations are checked (default: the fixture's, at most "
        "--iterations)",
    )
    parser.add_argument("--timeout-s", type=int, default=600)
    parser.add_argument(
        "--out",
        default=None,
        help="append the JSON line to this file; {rank} and {host} are replaced",
    )
    parser.add_argument(
        "--spawn",
        type=int,
        default=0,
        metavar="N",
        help="start N local workers without torchrun (dry run, usually with --backend gloo)",
    )
    parser.add_argument(
        "--fault-rank",
        type=int,
        default=None,
        metavar="R",
        help="testing only: rank R contributes R+1, so every element is off by one",
    )
    parser.add_argument(
        "--node-facts",
        action="store_true",
        help="print 'export CLUSTERBID_…=…' lines for this node's OS image (and on Kubernetes "
        "its kubelet version and instance type), read on the node, then exit",
    )
    parser.add_argument("--os-release", default="/etc/os-release", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.check_iterations is None:
        args.check_iterations = min(DEFAULT_CHECK_ITERATIONS, args.iterations)
    if args.count < 1 or args.iterations < 1 or args.check_iterations < 1:
        parser.error("--count, --iterations and --check-iterations must be at least 1")
    if args.check_iterations > args.iterations:
        parser.error("--check-iterations cannot exceed --iterations")
    return args


def os_release_name(path: str) -> str | None:
    """PRETTY_NAME from os-release ('Ubuntu 22.04.5 LTS'), as a Kubernetes Node reports it."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    fields = {}
    for line in lines:
        key, sep, value = line.partition("=")
        if sep:
            fields[key.strip()] = value.strip().strip('"').strip("'")
    name = fields.get("PRETTY_NAME") or " ".join(
        v for v in (fields.get("NAME"), fields.get("VERSION_ID")) if v
    )
    return name or None


def facts_from_node(node: dict[str, Any]) -> dict[str, str]:
    """OS image, kubelet version and instance type from a Kubernetes Node object."""
    info = (node.get("status") or {}).get("nodeInfo") or {}
    labels = (node.get("metadata") or {}).get("labels") or {}
    facts = {
        "os_image": info.get("osImage"),
        "kubernetes_version": info.get("kubeletVersion"),
        "worker_node_spec": next((labels[k] for k in INSTANCE_TYPE_LABELS if labels.get(k)), None),
    }
    return {k: str(v) for k, v in facts.items() if v}


def read_own_node() -> dict[str, Any] | None:
    """This pod's Node, read with the pod's service account (NODE_NAME from the downward API);
    None outside Kubernetes. A refusal is said on stderr and leaves the facts unreported."""
    name, host = os.environ.get("NODE_NAME"), os.environ.get("KUBERNETES_SERVICE_HOST")
    if not name or not host:
        return None
    port = os.environ.get("KUBERNETES_SERVICE_PORT", "443")
    host = f"[{host}]" if ":" in host else host
    try:
        with open(f"{SERVICE_ACCOUNT}/token", encoding="utf-8") as handle:
            token = handle.read().strip()
        request = urllib.request.Request(
            f"https://{host}:{port}/api/v1/nodes/{name}",
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
        )
        context = ssl.create_default_context(cafile=f"{SERVICE_ACCOUNT}/ca.crt")
        with urllib.request.urlopen(request, context=context, timeout=10) as response:
            node: dict[str, Any] = json.load(response)
        return node
    except (OSError, ValueError) as exc:
        print(f"fixture: could not read Node {name}: {exc}", file=sys.stderr)
        return None


def node_facts(os_release: str) -> dict[str, str]:
    if os.environ.get("KUBERNETES_SERVICE_HOST"):
        # In a pod /etc/os-release is the container image's, not the node's: only the Node says.
        node = read_own_node()
        return facts_from_node(node) if node is not None else {}
    name = os_release_name(os_release)
    return {"os_image": name} if name else {}


def print_node_facts(facts: dict[str, str]) -> None:
    """The export lines the launcher evaluates; a difference from the agreed value on stderr."""
    for key in NODE_FACTS:
        variable = LAUNCHER_KEYS[key]
        agreed = os.environ.get(variable.replace("CLUSTERBID_", "CLUSTERBID_AGREED_"), "")
        value = facts.get(key)
        if value is None:
            if agreed:
                print(f"fixture: this node shows no {key}; agreed: {agreed}", file=sys.stderr)
            continue
        if agreed and value.strip() != agreed.strip():
            print(f"fixture: {key} on this node is {value!r}; agreed: {agreed!r}", file=sys.stderr)
        print(f"export {variable}={shlex.quote(value)}")


def env_int(*names: str, default: int | None = None) -> int:
    for name in names:
        value = os.environ.get(name)
        if value not in (None, ""):
            return int(value)
    if default is None:
        raise SystemExit(f"none of {', '.join(names)} is set; launch with torchrun or srun")
    return default


def emit(record: dict[str, Any], out: str | None) -> None:
    line = json.dumps(record, sort_keys=True) + "\n"
    if out is None:
        sys.stdout.write(line)
        sys.stdout.flush()
        return
    path = out.replace("{rank}", str(record["rank"])).replace("{host}", str(record["host"]))
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    # One write on an O_APPEND descriptor keeps lines from different workers whole.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, line.encode("utf-8"))
    finally:
        os.close(fd)


def run_worker(args: argparse.Namespace, rank: int, world_size: int, local_rank: int) -> bool:
    import torch
    import torch.distributed as dist

    dtype = {"int32": torch.int32, "int64": torch.int64}[args.dtype]
    if args.backend == "nccl":
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
    else:
        device = torch.device("cpu")
    dist.init_process_group(
        backend=args.backend,
        rank=rank,
        world_size=world_size,
        timeout=timedelta(seconds=args.timeout_s),
    )
    expected = world_size * (world_size - 1) // 2
    ok = True
    low = high = None
    tensor = torch.empty(args.count, dtype=dtype, device=device)
    try:
        started = time.perf_counter()
        first_checked = args.iterations - args.check_iterations
        contribution = rank + 1 if rank == args.fault_rank else rank
        for step in range(args.iterations):
            tensor.fill_(contribution)
            dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
            if step >= first_checked:
                step_low = int(tensor.min().item())
                step_high = int(tensor.max().item())
                low = step_low if low is None else min(low, step_low)
                high = step_high if high is None else max(high, step_high)
                ok = ok and step_low == expected and step_high == expected
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        elapsed = time.perf_counter() - started
        nccl_version = None
        if args.backend == "nccl":
            nccl_version = ".".join(str(part) for part in torch.cuda.nccl.version())
        record = {
            "rank": rank,
            "world_size": world_size,
            "host": socket.gethostname(),
            "local_rank": local_rank,
            "device": str(device),
            "count": args.count,
            "dtype": args.dtype,
            "pass": ok,
            "min": low,
            "max": high,
            "expected": expected,
            "elapsed_s": round(elapsed, 6),
            "torch_version": torch.__version__,
            "nccl_version": nccl_version,
            "cuda_version": torch.version.cuda if device.type == "cuda" else None,
            "fixture_sha256": FIXTURE_SHA256,
        }
        record.update({k: os.environ[v] for k, v in LAUNCHER_KEYS.items() if os.environ.get(v)})
        emit(record, args.out)
        # Every rank learns whether any rank failed, so every exit status tells the truth.
        failures = torch.tensor([0 if ok else 1], dtype=torch.int64, device=device)
        dist.all_reduce(failures, op=dist.ReduceOp.SUM)
        return ok and int(failures.item()) == 0
    finally:
        dist.destroy_process_group()


def _spawned(local_rank: int, args: argparse.Namespace, world_size: int) -> None:
    if not run_worker(args, local_rank, world_size, local_rank):
        raise SystemExit(EXIT_CHECK_FAILED)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.node_facts:
        print_node_facts(node_facts(args.os_release))
        return 0
    if args.spawn:
        import torch.multiprocessing as mp

        os.environ["MASTER_ADDR"] = "127.0.0.1"
        os.environ["MASTER_PORT"] = str(free_port())
        try:
            mp.spawn(_spawned, args=(args, args.spawn), nprocs=args.spawn, join=True)
        except mp.ProcessExitedException as exc:
            print(f"fixture: a worker exited with status {exc.exit_code}", file=sys.stderr)
            return EXIT_CHECK_FAILED
        except mp.ProcessRaisedException as exc:
            print(f"fixture: a worker raised: {exc}", file=sys.stderr)
            return EXIT_CHECK_FAILED
        return 0
    rank = env_int("RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK")
    world_size = env_int("WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE")
    local_rank = env_int("LOCAL_RANK", "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK", default=0)
    if "MASTER_ADDR" not in os.environ or "MASTER_PORT" not in os.environ:
        print("fixture: MASTER_ADDR and MASTER_PORT must be set", file=sys.stderr)
        return EXIT_USAGE
    return 0 if run_worker(args, rank, world_size, local_rank) else EXIT_CHECK_FAILED


if __name__ == "__main__":
    sys.exit(main())
