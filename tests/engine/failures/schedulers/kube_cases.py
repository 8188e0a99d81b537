"""The Kubernetes case of generate.py: a PyTorchJob whose worker-3 (RANK=4) is OOMKilled.

PyTorchJob `llm-ft` (Kubeflow training operator, no elastic policy): master-0 and worker-0..3,
one process and one GPU each, so RANK = replica index + 1 for workers and WORLD_SIZE = 5. At
12:05:30 the kubelet kills worker-3's container at its 48Gi memory limit (OOMKilled, exit code
137); the pod restarts it (restart count 1). The restarted container prints RANK=4 again and,
the others being stuck in the collective it left, fails to reach the master's NCCL socket at
12:06:41: a later, unrelated-looking NCCL warning. The other ranks time out at 12:15:31.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

T0 = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)
JOB = "llm-ft"
NODES = {
    "master-0": ("gke-train-a3-pool-5f2c9e1d-7kq2", "10.8.0.9"),
    "worker-0": ("gke-train-a3-pool-5f2c9e1d-b8mv", "10.8.1.12"),
    "worker-1": ("gke-train-a3-pool-5f2c9e1d-c2zt", "10.8.2.7"),
    "worker-2": ("gke-train-a3-pool-5f2c9e1d-hx4n", "10.8.4.5"),
    "worker-3": ("gke-train-a3-pool-5f2c9e1d-w9pd", "10.8.3.14"),
}
IMAGE = "us-docker.pkg.dev/acme-ml/train/llm-ft"
DIGEST = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
RANKS = {"master-0": 0, "worker-0": 1, "worker-1": 2, "worker-2": 3, "worker-3": 4}
KILLED = T0 + timedelta(minutes=5, seconds=30)
RESTARTED = KILLED + timedelta(seconds=40)
TIMEOUT = T0 + timedelta(minutes=15, seconds=31)


def _ts(t: datetime) -> str:
    """`kubectl logs --timestamps`: RFC 3339 with nanoseconds."""
    return f"{t:%Y-%m-%dT%H:%M:%S}.{t.microsecond:06d}000Z "


def _rfc1123(t: datetime) -> str:
    return f"{t:%a, %d %b %Y %H:%M:%S} +0000"


def _get_pods() -> str:
    """`kubectl get pods -o wide`: tab-aligned columns, three spaces after the widest cell."""
    head = ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE",
            "READINESS GATES"]  # fmt: skip
    rows = [head]
    for replica, (node, ip) in NODES.items():
        restarts = "1 (9m35s ago)" if replica == "worker-3" else "0"
        rows.append([f"{JOB}-{replica}", "1/1", "Running", restarts, "16m", ip, node, "<none>",
                     "<none>"])  # fmt: skip
    widths = [max(len(r[k]) for r in rows) + 3 for k in range(len(head))]
    return "".join(
        "".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() + "\n" for r in rows
    )


def _describe_worker3() -> str:
    node, ip = NODES["worker-3"]
    started = T0 - timedelta(seconds=20)
    assigned = f"Successfully assigned training/{JOB}-worker-3 to {node}"
    pulled = f'Container image "{IMAGE}:2024.04.29" already present on machine'
    return f"""Name:             {JOB}-worker-3
Namespace:        training
Priority:         0
Service Account:  default
Node:             {node}/10.128.0.41
Start Time:       {_rfc1123(started - timedelta(seconds=25))}
Labels:           training.kubeflow.org/job-name={JOB}
                  training.kubeflow.org/operator-name=pytorchjob-controller
                  training.kubeflow.org/replica-index=3
                  training.kubeflow.org/replica-type=worker
Annotations:      sidecar.istio.io/inject: false
Status:           Running
IP:               {ip}
IPs:
  IP:           {ip}
Controlled By:  PyTorchJob/{JOB}
Containers:
  pytorch:
    Container ID:  containerd://6b0f1c9e4d2a7f3b8c5e1d0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e
    Image:         {IMAGE}:2024.04.29
    Image ID:      {IMAGE}@sha256:{DIGEST}
    Port:          23456/TCP
    Host Port:     0/TCP
    Command:
      python
      -u
      /workspace/train.py
    State:          Running
      Started:      {_rfc1123(RESTARTED)}
    Last State:     Terminated
      Reason:       OOMKilled
      Exit Code:    137
      Started:      {_rfc1123(started)}
      Finished:     {_rfc1123(KILLED)}
    Ready:          True
    Restart Count:  1
    Limits:
      memory:          48Gi
      nvidia.com/gpu:  1
    Requests:
      cpu:             8
      memory:          48Gi
      nvidia.com/gpu:  1
    Environment:
      MASTER_PORT:       23456
      MASTER_ADDR:       {JOB}-master-0
      WORLD_SIZE:        5
      RANK:              4
      PYTHONUNBUFFERED:  1
    Mounts:
      /dev/shm from dshm (rw)
Conditions:
  Type                        Status
  PodReadyToStartContainers   True
  Initialized                 True
  Ready                       True
  ContainersReady             True
  PodScheduled                True
QoS Class:                   Burstable
Node-Selectors:              cloud.google.com/gke-accelerator=nvidia-h100-80gb
Tolerations:                 nvidia.com/gpu:NoSchedule op=Exists
Events:
  Type    Reason     Age                  From               Message
  ----    ------     ----                 ----               -------
  Normal  Scheduled  16m                  default-scheduler  {assigned}
  Normal  Pulled     9m35s (x2 over 16m)  kubelet            {pulled}
  Normal  Created    9m35s (x2 over 16m)  kubelet            Created container pytorch
  Normal  Started    9m35s (x2 over 16m)  kubelet            Started container pytorch
"""


def _events() -> str:
    rows = ["LAST SEEN   TYPE      REASON      OBJECT                  MESSAGE"]
    for replica, (node, _) in NODES.items():
        rows.append(f"16m         Normal    Scheduled   pod/{JOB}-{replica:<9}   Successfully "
                    f"assigned training/{JOB}-{replica} to {node}")  # fmt: skip
    rows.append(f"9m35s       Normal    Pulled      pod/{JOB}-worker-3     Container image "
                f'"{IMAGE}:2024.04.29" already present on machine')  # fmt: skip
    rows.append(f"9m35s       Normal    Started     pod/{JOB}-worker-3     Started container "
                "pytorch")  # fmt: skip
    return "\n".join(rows) + "\n"


def _startup(replica: str, at: datetime) -> list[str]:
    rank = RANKS[replica]
    host = f"{JOB}-{replica}"
    _, ip = NODES[replica]
    return [
        f"{_ts(at)}RANK={rank} WORLD_SIZE=5 LOCAL_RANK=0 MASTER_ADDR={JOB}-master-0",
        f"{_ts(at + timedelta(seconds=2))}{host}:{31 + rank}:{31 + rank} [0] NCCL INFO "
        f"Bootstrap : Using eth0:{ip}<0>",
    ]


def _worker_log(replica: str) -> str:
    rank = RANKS[replica]
    lines = _startup(replica, T0)
    lines += [f"{_ts(T0 + timedelta(seconds=10 + 9 * s))}step {s} rank {rank} ok"
              for s in range(0, 35)]  # fmt: skip
    lines.append(
        f"{_ts(TIMEOUT)}[rank{rank}]:[E501 {TIMEOUT:%H:%M:%S}.112233 ProcessGroupNCCL.cpp:616] "
        f"[Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1021, "
        "OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran for 600031 "
        "milliseconds before timing out."
    )
    return "\n".join(lines) + "\n"


def _worker3_previous() -> str:
    lines = _startup("worker-3", T0)
    lines += [f"{_ts(T0 + timedelta(seconds=10 + 9 * s))}step {s} rank 4 ok" for s in range(35)]
    lines.append(f"{_ts(KILLED - timedelta(seconds=3))}step 35 rank 4: caching 64 shards of "
                 "tokenized data in host memory")  # fmt: skip
    return "\n".join(lines) + "\n"


def _worker3_current() -> str:
    lines = _startup("worker-3", RESTARTED)
    at = RESTARTED + timedelta(seconds=31)
    master = NODES["master-0"][1]
    lines.append(f"{_ts(at)}{JOB}-worker-3:35:214 [0] misc/socket.cc:484 NCCL WARN Net : "
                 f"Connect to {master}<45123> failed : Connection refused")  # fmt: skip
    return "\n".join(lines) + "\n"


def kube_pytorchjob_oom() -> dict[str, str]:
    files = {
        "kubectl-get-pods-wide.txt": _get_pods(),
        f"kubectl-describe-pod-{JOB}-worker-3.txt": _describe_worker3(),
        "kubectl-get-events.txt": _events(),
        f"logs/{JOB}-worker-3.previous.log": _worker3_previous(),
        f"logs/{JOB}-worker-3.log": _worker3_current(),
    }
    for replica in ("master-0", "worker-0", "worker-1", "worker-2"):
        files[f"logs/{JOB}-{replica}.log"] = _worker_log(replica)
    return files


KUBE_CASES = {"kube_pytorchjob_oom": kube_pytorchjob_oom}
