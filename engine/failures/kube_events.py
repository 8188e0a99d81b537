"""Kubernetes events as a failed run's evidence: `kubectl get events` tables and the `Events:`
section of any `kubectl describe` (a pod, a PyTorchJob).

`kubectl get events` prints `LAST SEEN  TYPE  REASON  OBJECT  MESSAGE` (`NAMESPACE` first with
`-A`); `kubectl describe` prints `Type  Reason  Age  From  Message` under `Events:`, about the
object named by the block's `Name:`. Both give ages, not times: rows are ordered by their age
(a repeated event counts from its first occurrence, `7m (x3 over 12m)`).

What the rows say about a PyTorchJob (Kubeflow training operator):
* `ExitedWithCode`: `Pod: <namespace>.<pod> exited with code 137`, one row per ended container;
* `PyTorchJobFailed` (`JobFailed` before v1.7): `PyTorchJob <job> is failed because 1 Worker
  replica(s) failed.`, and `…Restarting` with `is restarting because`;
* the kubelet's `BackOff` (`Back-off restarting failed container <c> in pod <pod>_<ns>(<uid>)`),
  `Failed`, `Killing`; the node's `NodeNotReady`, `Evicted`, `Preempting`, `OOMKilling`.

A pod the scheduler could not place (`FailedScheduling`: `0/16 nodes are available: 4 node(s) had
untolerated taint {nvidia.com/gpu.unhealthy: }, 12 Insufficient nvidia.com/gpu.`) never started:
weak evidence. Nodes tainted unhealthy, unreachable, not ready or cordoned are the cluster's;
GPUs that are merely taken leave the owner to what holds them.

A Job or pod past its `activeDeadlineSeconds` is ended by Kubernetes (`DeadlineExceeded`: "Job
was active longer than specified deadline", "Pod was active on the node longer than the
specified deadline"): a time limit, as Slurm's, whose owner the run's speed decides.

Kueue preempts a whole Workload to admit another (`Preempted to accommodate a workload (UID: …,
JobUID: …) due to prioritization in the ClusterQueue`, also `… reclamation within the cohort`,
`… Fair Sharing within the cohort`), as a Normal event on the Workload and the Job it suspends.
Its reason names whose workload won: one of the same ClusterQueue by priority, or the queue that
lent the quota the victim was borrowing, taking it back; both are the job's own queue at work.
Fair sharing leaves it to the agreed share.

A pod the kubelet evicted or the scheduler preempted was taken away, not waiting on another: the
eviction or preemption can start the failure. An eviction that says the container used more than
it requested (`… has larger consumption of ephemeral-storage`) is the job's: the kubelet evicts
first the pods furthest beyond their requests. A preemption's owner depends on whose pod took
the node.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from . import kube
from .model import INFRASTRUCTURE, JOB, Event

_LOOK = 65_536
_GET_HEADER = re.compile(r"^(?:NAMESPACE\s+)?LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+.*MESSAGE", re.M)
_DESCRIBE_HEADER = re.compile(r"^\s+Type\s+Reason\s+Age\s+From\s+Message\s*$")
_AGE = re.compile(r"(\d+)([dhms])")
_UNIT = {"d": 86_400, "h": 3_600, "m": 60, "s": 1}
_REPEATED = re.compile(r"\(x\d+ over (\S+)\)")
_EXITED = re.compile(r"Pod: (?:[\w.\-]+?)\.([a-z0-9][a-z0-9\-]*) exited with code (-?\d+)")
_JOB_FAILED = re.compile(
    r"(\w+Job) (?:[\w\-]+/)?([\w.\-]+) (?:is|has) (failed|restarting) because (\d+) (\w+) "
    r"replica\(s\) failed"
)
_IN_POD = re.compile(r"in pod ([a-z0-9][a-z0-9.\-]*)_")
_CREATED = re.compile(r"Created pod: ([a-z0-9][a-z0-9.\-]*)")
_NODE_REASONS = frozenset({"NodeNotReady", "NodeLost"})
_NODE_STATUS = re.compile(r"^Node ([a-z0-9][a-z0-9.\-]*) status is now: Node")
_OTHER_REASONS = frozenset({"BackOff", "Failed"})
_TAKEN = frozenset({"Evicted", "Preempted", "Preempting"})
_KUEUE = re.compile(
    r"Preempted to accommodate a workload \(UID: ([^,)\s]+)(?:, JobUID: ([^)\s]+))?\)"
    r"(?: due to ([^;\n]+?)| in the ClusterQueue)?\s*(?:;|$)"
)
_ON_NODE = re.compile(r"\bon node ([a-z0-9][a-z0-9.\-]*)")
_LOW_ON = re.compile(r"low on resource: ([\w-]+)")
_LARGER = re.compile(r"Container (\S+) was using \S+, request is \S+, has larger consumption")
# The kubelet's own words for a pod past its ephemeral-storage limit (not the node's pressure).
_OVER_LIMIT = re.compile(
    r"exceeds the total limit of containers|exceeded its local ephemeral storage limit"
)
# A taint the node lifecycle controller, a GPU health checker or a cordon put on a node: the
# node is unhealthy or out of service (`{node.kubernetes.io/unreachable: }`, `{nvidia.com/…
# unhealthy: }`, `{node.kubernetes.io/unschedulable: }`).
_BAD_NODE_TAINT = re.compile(
    r"(\d+) node\(s\) had (?:untolerated )?taint \{([^:}]*(?:unreachable|not-ready|unhealthy"
    r"|unschedulable)[^:}]*)"
)
_HOST_OOM = frozenset({"OOMKilling", "SystemOOM"})  # node-problem-detector's, the kubelet's


@dataclass(frozen=True, slots=True)
class Row:
    """One event row: where it sits, what it says, and how long ago it (first) happened."""

    source: str
    line_no: int
    type: str
    reason: str
    object: str  # `pod/llm-ft-worker-3`, `pytorchjob/llm-ft`; "" when nothing names it
    message: str
    age_s: int | None

    def pod(self) -> str | None:
        """The pod the row is about: its object, else the pod its message names."""
        if self.object.startswith("pod/") and len(self.object) > 4:
            return self.object[4:]
        for pattern in (_EXITED, _IN_POD, _CREATED):
            m = pattern.search(self.message)
            if m is not None:
                return m.group(1)
        return None


def looks_like_events(text: str) -> bool:
    head = text[:_LOOK]
    return _GET_HEADER.search(head) is not None or "\nEvents:" in text or head.startswith("Events:")


def read_rows(name: str, text: str) -> list[Row]:
    """Every event row of one file, in file order."""
    if not looks_like_events(text):
        return []
    lines = text.split("\n")
    rows: list[Row] = []
    subject = ""
    for i, line in enumerate(lines):
        if line.startswith("Name:"):
            subject = line.split(":", 1)[1].strip()
        elif line.startswith("Kind:") and subject:
            subject = f"{line.split(':', 1)[1].strip().lower()}/{subject.split('/')[-1]}"
        elif line.startswith("Roles:") and subject and "/" not in subject:
            subject = f"node/{subject}"  # `kubectl describe node` prints no Kind:, but Roles:
        elif _GET_HEADER.match(line):
            rows.extend(_table(name, lines, i, described=None))
        elif _DESCRIBE_HEADER.match(line) and i and lines[i - 1].startswith("Events:"):
            # Without its `Name:` line a describe's rows are about no object the file names.
            obj = subject if "/" in subject else f"pod/{subject}" if subject else ""
            rows.extend(_table(name, lines, i, described=obj))
    return rows


def unnamed(rows: list[Row]) -> list[str]:
    """What the reader is told of event rows about no object (a `kubectl describe` copied
    without its `Name:` line): one line per file, naming the first such row."""
    seen: dict[str, list[Row]] = {}
    for r in rows:
        if not r.object:
            seen.setdefault(r.source, []).append(r)
    return [
        f"{source}:{found[0].line_no}: {len(found)} Kubernetes event row(s) name no object (a "
        "`kubectl describe` without its Name: line): they are tied to no pod and so to no rank "
        "unless their message names the pod; upload the whole `kubectl describe` output"
        for source, found in seen.items()
    ]


def consumed_lines(rows: list[Row]) -> dict[str, set[int]]:
    """Per file, the line numbers the rows came from: no line reader reads them again."""
    out: dict[str, set[int]] = {}
    for r in rows:
        out.setdefault(r.source, set()).add(r.line_no)
    return out


def _table(name: str, lines: list[str], at: int, *, described: str | None) -> list[Row]:
    """Columns start where their header word starts (kubectl's tab writer)."""
    header = lines[at]
    cols = [(m.group(0), m.start()) for m in re.finditer(r"LAST SEEN|\S+", header)]
    cols = [(k if k != "LAST SEEN" else "AGE", s) for k, s in cols]
    rows: list[Row] = []
    for j in range(at + 1, len(lines)):
        line = lines[j]
        if not line.strip():
            break
        if set(line.strip()) <= {"-", " "}:
            continue
        cells = {
            key.upper(): line[start : cols[k + 1][1] if k + 1 < len(cols) else None].strip()
            for k, (key, start) in enumerate(cols)
        }
        kind = cells.get("TYPE", "")
        if kind not in ("Normal", "Warning"):
            break
        obj = cells.get("OBJECT", "") if described is None else described
        rows.append(Row(name, j + 1, kind, cells.get("REASON", ""), obj,
                        cells.get("MESSAGE", ""), _age(cells.get("AGE", ""))))  # fmt: skip
    return rows


def _age(text: str) -> int | None:
    """`16m`, `9m35s`, `2d3h`; a repeated event's age is its first occurrence's."""
    m = _REPEATED.search(text)
    if m is not None:
        text = m.group(1)
    parts = _AGE.findall(text.split(" ", 1)[0])
    return sum(int(n) * _UNIT[u] for n, u in parts) if parts else None


def register_pods(rows: list[Row], pods: dict[str, kube.Pod]) -> None:
    """Every pod a row names joins the pods, so that replica indices give ranks."""
    for r in rows:
        pod = r.pod()
        if pod is not None and kube.is_replica_name(pod):
            pods.setdefault(pod, kube.Pod(pod))


def row_events(rows: list[Row], pods: dict[str, kube.Pod]) -> list[Event]:
    """Events of the rows that say something about the failure. Of the pods whose container
    exited with a non-zero code, the one that exited first (the oldest row of its listing: ages
    count back from when each listing was taken) is the operator's first failed replica; the
    later exits are the job being torn down."""
    oldest: dict[str, Row] = {}
    for r in rows:
        if _exit_code(r) not in (None, 0):
            seen = oldest.get(r.source)
            if seen is None or (r.age_s or -1) > (seen.age_s or -1):
                oldest[r.source] = r
    firsts = {id(r) for r in oldest.values()}
    verdicts = [r.message for r in rows if _JOB_FAILED.search(r.message)]
    events: list[Event] = []
    for r in rows:
        found = _read(r, first=id(r) in firsts, pods=pods, job=verdicts[0] if verdicts else None)
        if found is None:
            continue
        kind, detail, text = found
        pod = pods.get(r.pod() or "")
        rank, node = (pod.rank, pod.node) if pod else (None, None)
        if r.object.startswith("node/"):
            node = r.object[5:]
        elif (named := _NODE_STATUS.search(r.message)) is not None and kind == "scheduler":
            node = named.group(1)  # `Node gpu-7 status is now: NodeNotReady`, its object unnamed
        node = node or detail.get("host")  # `Preempted by pod … on node gpu-node-8`
        if pod is not None:
            detail.update(pod=pod.name, rank_from=f"pod {pod.name} ({pod.rank_from})")
        if r.age_s is not None:
            detail["age_s"] = r.age_s
        detail.update(event_reason=r.reason, object=r.object or None)
        events.append(Event(None, rank, node, r.source, r.line_no, kind, text, detail))
    return events


def _exit_code(r: Row) -> int | None:
    m = _EXITED.search(r.message) if r.reason == "ExitedWithCode" else None
    return int(m.group(2)) if m else None


def _read(
    r: Row, *, first: bool, pods: dict[str, kube.Pod], job: str | None
) -> tuple[str, dict[str, Any], str] | None:
    code = _exit_code(r)
    if code is not None:
        return _exited(r, code, first=first, pods=pods, job=job)
    m = _JOB_FAILED.search(r.message)
    if m is not None:
        detail = {
            "cause": f"{m.group(1)} {m.group(3)}: {m.group(4)} {m.group(5)} replica(s) failed",
            "job": m.group(2), "failed_replicas": int(m.group(4)), "replica_type": m.group(5),
            "secondary": True, "tier": 3,
        }  # fmt: skip
        return "scheduler", detail, r.message[:400]
    if r.reason in _HOST_OOM:
        detail = {"tier": 1, "host_oom": True, "cause": f"{r.reason} on the node"}
        if "Memory cgroup" in r.message:
            detail["limit"] = True
        return "oom", detail, r.message[:400]
    if "OOMKilled" in r.message:
        return "oom", {"tier": 1, "limit": True, "cause": "container OOMKilled"}, r.message[:400]
    if r.reason in _NODE_REASONS:
        return "scheduler", {"cause": r.reason, "secondary": False, "tier": 0}, r.message[:400]
    if r.reason == "FailedScheduling" and r.type == "Warning":
        return "launch_failure", _unscheduled(r.message), r.message[:400]
    if r.reason == "DeadlineExceeded":  # the Job controller warns; the kubelet's is Normal
        detail = {"cause": "time limit", "time_limit": True, "secondary": False, "tier": 2}
        return "scheduler", detail, r.message[:400]
    kueue = _KUEUE.search(r.message) if r.reason != "EvictedDueToPreempted" else None
    if kueue is not None:  # `EvictedDueToPreempted` repeats the Workload's `Preempted`
        return "scheduler", _kueue(kueue), r.message[:400]
    if r.reason in _TAKEN and r.type == "Warning":
        return "scheduler", _taken(r), r.message[:400]
    if r.reason in _OTHER_REASONS and r.type == "Warning":
        return "scheduler", {"cause": r.reason, "secondary": True, "tier": 3}, r.message[:400]
    return None


def _unscheduled(message: str) -> dict[str, Any]:
    """A pod no node could take: the scheduler's summary says why each node refused it."""
    summary = message.split(". preemption:", 1)[0].strip()[:200]
    detail: dict[str, Any] = {
        "tier": 2,
        "launch": "schedule",
        "cause": f"the pod was never scheduled ({summary})",
    }
    bad = _BAD_NODE_TAINT.search(message)
    if bad is not None:
        detail["category"] = INFRASTRUCTURE
        detail["category_reason"] = (
            f"{bad.group(1)} node(s) were tainted {bad.group(2)}: nodes of the cluster "
            "unhealthy, unreachable or out of service"
        )
    return detail


def _kueue(m: re.Match[str]) -> dict[str, Any]:
    """Kueue's preemption of the whole workload, with the reason it gives."""
    why = (m.group(3) or "prioritization in the ClusterQueue").strip()
    detail: dict[str, Any] = {
        "secondary": False, "tier": 2, "preemptor_uid": m.group(1),
        "cause": f"Kueue preempted the workload to admit another ({why})",
    }  # fmt: skip
    if why.startswith("prioritization in the ClusterQueue"):
        detail["category"] = JOB
        detail["category_reason"] = (
            "Kueue gave the quota to a higher-priority workload of the same ClusterQueue: the "
            "job's own queue and priorities"
        )
    elif why.startswith("reclamation within the cohort"):
        detail["category"] = JOB
        detail["category_reason"] = (
            "the workload ran on quota its ClusterQueue borrowed beyond its nominal quota, and "
            "the queue that lent it took it back"
        )
    else:  # Fair Sharing, or a reason this reader does not know: the agreed share decides
        detail["preempted"] = True
    return detail


def _taken(r: Row) -> dict[str, Any]:
    """An eviction or a preemption: weak evidence, but never a consequence of another's failure."""
    detail: dict[str, Any] = {"secondary": False, "tier": 2}
    if r.reason != "Evicted":
        on = _ON_NODE.search(r.message)
        return (
            detail
            | {"cause": "preempted by a higher-priority pod", "preempted": True}
            | ({"host": on.group(1)} if on else {})
        )
    low = _LOW_ON.search(r.message)
    detail["cause"] = "evicted by the kubelet" + (
        f": the node was low on {low.group(1)}" if low else ""
    )
    larger = _LARGER.search(r.message)
    over = _OVER_LIMIT.search(r.message)
    if larger is not None:
        detail["category"] = JOB
        detail["category_reason"] = (
            f"container {larger.group(1)} used more {low.group(1) if low else 'of it'} than it "
            "requested, so the kubelet evicted it first: the job's requests or its use"
        )
    elif over is not None:
        detail["cause"] = "evicted by the kubelet: over its own ephemeral storage limit"
        detail["category"] = JOB
        detail["category_reason"] = "the pod wrote more local disk than its own limit allows"
    return detail


def _exited(
    r: Row, code: int, *, first: bool, pods: dict[str, kube.Pod], job: str | None
) -> tuple[str, dict[str, Any], str]:
    """A container's exit code: 128 + N is death by signal N (137: SIGKILL, which a container
    at its memory limit gets); a pod whose `kubectl describe` says `OOMKilled` ran out of its
    own memory limit."""
    pod = r.pod() or "?"
    detail: dict[str, Any] = {"exitcode": code, "exit_code": code}
    oom = any(t.reason == "OOMKilled" for t in getattr(pods.get(pod), "terminations", []))
    if code > 128:
        detail["signal"] = code - 128
    if oom:
        cause = f"container of {pod} OOMKilled at its memory limit (exit code {code})"
        detail.update(tier=1, limit=True, cause=cause)
        return "oom", detail, f"{r.message} [{cause}]"
    if code == 137:
        cause = (
            f"container of {pod} killed by SIGKILL (exit code 137: an out-of-memory kill or "
            "a forced stop)"
        )
    elif code > 128:
        cause = f"container of {pod} died by signal {code - 128} (exit code {code})"
    else:
        cause = f"container of {pod} exited with code {code}"
    detail["cause"] = cause
    if first:
        why = "the first pod that the training operator saw exit with a non-zero code"
        if job:
            why = f"{why} ({r.source}:{r.line_no}; the job: {job})"
        detail.update(secondary=False, tier=1, first_exit=True, why=why)
    else:
        detail.update(secondary=True, tier=3)
    return "scheduler", detail, f"{r.message} [{cause}]"
