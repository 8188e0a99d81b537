"""What Kubernetes says about pods: their node, their rank, and how their containers ended.

Read from `kubectl describe pod` (`Node: gpu-node-b/10.0.0.12`, the container's `State` and
`Last State` with `Reason`, `Exit Code`, `Started`/`Finished`, `Restart Count`, the `RANK` and
`WORLD_SIZE` of its environment, the PyTorchJob labels), `kubectl get pods -o wide` (the `NODE`
and `IP` columns), `kubectl get events` (`Successfully assigned ns/pod to node`) and per-pod logs
named after the pod (`trainer-worker-3.log`, `trainer-worker-3.previous.log` from
`kubectl logs --previous`). A pod's node is the Kubernetes node; inside the pod, the hostname
that NCCL and Python print is the pod's name, never a node.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

# PyTorchJob (Kubeflow training operator) replicas: `<job>-master-0`, `<job>-worker-3`.
_REPLICA = re.compile(r"^(?P<job>[a-z0-9][a-z0-9.\-]*?)-(?P<type>master|worker)-(?P<idx>\d+)$")
_NODE = re.compile(r"^Node:\s+([^/\s]+)(?:/([\d.]+))?", re.MULTILINE)
_ASSIGNED = re.compile(r"Successfully assigned [\w.\-]+/([\w.\-]+) to ([\w.\-]+)")
_ENV_INT = re.compile(r"^\s+(RANK|WORLD_SIZE|PET_NNODES):\s+(\d+)\s*$", re.MULTILINE)
_STATE = re.compile(r"^(\s+)(State|Last State):\s+(\w+)", re.MULTILINE)
_FIELD = re.compile(r"^\s+(Reason|Exit Code|Started|Finished|Signal):\s+(.*?)\s*$")
_RESTARTS = re.compile(r"^\s+Restart Count:\s+(\d+)", re.MULTILINE)
_POD_IP = re.compile(r"^IP:\s+([\d.]+)", re.MULTILINE)
_LOOK = 65_536
_GET_HEADER = re.compile(r"^NAME .* NODE\b", re.MULTILINE)
_PRINTED_RANK = re.compile(r"\bRANK\s*[=:]\s*(\d+)|\brank (\d+)/\d+")


@dataclass(slots=True)
class Termination:
    """One ended container: where its `State`/`Last State` block sits in the file."""

    source: str
    first_line: int
    last_line: int
    reason: str
    exit_code: int | None
    finished: datetime | None
    current: bool  # `State: Terminated` (the pod did not restart) rather than `Last State`


@dataclass(slots=True)
class Pod:
    name: str
    node: str | None = None
    ip: str | None = None
    rank: int | None = None
    rank_from: str | None = None
    world_size: int | None = None
    restarts: int = 0
    terminations: list[Termination] = field(default_factory=list)

    def replica(self) -> tuple[str, str, int] | None:
        m = _REPLICA.match(self.name)
        return (m.group("job"), m.group("type"), int(m.group("idx"))) if m else None

    def ended(self) -> datetime | None:
        """When the first container of this pod ended (its earliest `Finished`)."""
        times = [t.finished for t in self.terminations if t.finished]
        return min(times) if times else None


def scan(name: str, text: str, pods: dict[str, Pod]) -> None:
    """Add what one text says about pods to `pods`."""
    # Listings are small and say what they are near their start: a log is not searched whole.
    if text.find("Containers:", 0, _LOOK) != -1 and _NODE.search(text):
        for block_start, block in _describe_blocks(text):
            _describe(name, block_start, block, pods)
    if text.find("NAME ", 0, _LOOK) != -1 and _GET_HEADER.search(text) is not None:
        _get_pods(text, pods)
    if text.find("Successfully assigned", 0, _LOOK) != -1:
        for m in _ASSIGNED.finditer(text):
            pods.setdefault(m.group(1), Pod(m.group(1))).node = m.group(2)


def _describe_blocks(text: str) -> list[tuple[int, str]]:
    """`kubectl describe pod` prints one `Name:` block per pod; (first line number, block)."""
    starts = [m.start() for m in re.finditer(r"^Name:\s", text, re.MULTILINE)]
    out = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        out.append((text.count("\n", 0, start) + 1, text[start:end]))
    return out


def _describe(source: str, first_line: int, block: str, pods: dict[str, Pod]) -> None:
    name = block.split("\n", 1)[0].split(":", 1)[1].strip()
    pod = pods.setdefault(name, Pod(name))
    m = _NODE.search(block)
    if m is not None and m.group(1) != "<none>":
        pod.node, pod.ip = m.group(1), m.group(2) or pod.ip
    m = _POD_IP.search(block)
    pod.ip = m.group(1) if m else pod.ip
    for key, value in _ENV_INT.findall(block):
        if key == "RANK" and pod.rank_from != "log":
            pod.rank, pod.rank_from = int(value), "environment"
        elif key == "WORLD_SIZE":
            pod.world_size = int(value)
    restarts = _RESTARTS.findall(block)
    pod.restarts = max([pod.restarts, *(int(r) for r in restarts)])
    lines = block.split("\n")
    for sm in _STATE.finditer(block):
        if sm.group(3) != "Terminated":
            continue
        at = block.count("\n", 0, sm.start())
        pod.terminations.append(_termination(source, first_line, lines, at, sm))


def _termination(
    source: str, first_line: int, lines: list[str], at: int, sm: re.Match[str]
) -> Termination:
    fields: dict[str, str] = {}
    end = at
    for j in range(at + 1, min(at + 12, len(lines))):
        fm = _FIELD.match(lines[j])
        if fm is None or len(lines[j]) - len(lines[j].lstrip()) <= len(sm.group(1)):
            break
        fields[fm.group(1)] = fm.group(2)
        end = j
    code = fields.get("Exit Code", "")
    return Termination(
        source, first_line + at, first_line + end, fields.get("Reason", "Terminated"),
        int(code) if code.isdigit() else None, _rfc1123(fields.get("Finished", "")),
        sm.group(2) == "State",
    )  # fmt: skip


def _rfc1123(text: str) -> datetime | None:
    """`Mon, 01 Jan 2024 12:05:30 +0000`, as `kubectl describe` prints container times."""
    try:
        return datetime.strptime(text.strip(), "%a, %d %b %Y %H:%M:%S %z").astimezone(UTC)
    except ValueError:
        return None


def _get_pods(text: str, pods: dict[str, Pod]) -> None:
    """`kubectl get pods -o wide`: columns start where their header word starts."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("NAME ") and " NODE " in f"{line} ":
            cols = [(m.group(0), m.start()) for m in re.finditer(r"\S+(?: \S+)*", line)]
            for row in lines[i + 1 :]:
                if not row.strip() or row.startswith("NAME "):
                    break
                cells = {
                    key: row[start : cols[k + 1][1] if k + 1 < len(cols) else None].strip()
                    for k, (key, start) in enumerate(cols)
                }
                _pod_row(cells, pods)


def _pod_row(cells: dict[str, str], pods: dict[str, Pod]) -> None:
    name = cells.get("NAME", "")
    if not name:
        return
    pod = pods.setdefault(name, Pod(name))
    node = cells.get("NODE", "")
    if node and node != "<none>":
        pod.node = node
    ip = cells.get("IP", "")
    if re.fullmatch(r"[\d.]+", ip):
        pod.ip = ip
    restarts = cells.get("RESTARTS", "").split(" ", 1)[0]
    if restarts.isdigit():
        pod.restarts = max(pod.restarts, int(restarts))


def is_listing(text: str) -> bool:
    """`kubectl describe pod` or `kubectl get …` output rather than a pod's own log."""
    if text.find("Containers:", 0, _LOOK) != -1 and _NODE.search(text, 0, _LOOK) is not None:
        return True
    return text.startswith(("NAME ", "LAST SEEN ", "NAMESPACE "))


def is_replica_name(name: str) -> bool:
    """`trainer-worker-3`: a PyTorchJob pod's name (and its hostname inside the pod)."""
    return _REPLICA.match(name) is not None


def pod_of_file(name: str, pods: dict[str, Pod]) -> str | None:
    """The pod a per-pod log is named after: the longest pod name in its path, else a
    PyTorchJob replica name in its file name."""
    base = name.replace("\\", "/")
    found = [p for p in pods if re.search(rf"(?<![\w-]){re.escape(p)}(?![0-9A-Za-z]|-\d)", base)]
    if found:
        return max(found, key=len)
    stem = base.rsplit("/", 1)[-1].split(".", 1)[0]
    stem = re.sub(r"[-_](?:previous|prev|current|log|logs)$", "", stem)
    return stem if _REPLICA.match(stem) else None


def is_previous(name: str) -> bool:
    """`kubectl logs --previous` output, as people name it."""
    return re.search(r"previous|[._-]prev\b", name.rsplit("/", 1)[-1]) is not None


def printed_rank(text: str) -> int | None:
    """The rank a pod's own log prints (`RANK=4`, `rank 4/5`), when it prints one."""
    m = _PRINTED_RANK.search(text[:1_000_000])
    return int(m.group(1) or m.group(2)) if m else None


def assign_ranks(pods: dict[str, Pod]) -> None:
    """A PyTorchJob replica's rank from its index where nothing printed one: master-0 is rank
    0 and worker-i is i + 1 when the job has a master, worker-i is i when it has none."""
    masters = {r[0] for p in pods.values() if (r := p.replica()) and r[1] == "master"}
    for pod in pods.values():
        rep = pod.replica()
        if pod.rank is not None or rep is None:
            continue
        job, kind, idx = rep
        pod.rank = idx if kind == "master" or job not in masters else idx + 1
        pod.rank_from = "replica index"


def replica_count(pods: dict[str, Pod]) -> int | None:
    """A PyTorchJob's size from its replicas, one process per pod (the weakest world size)."""
    per_job: dict[str, int] = {}
    for pod in pods.values():
        rep = pod.replica()
        if rep is not None:
            per_job[rep[0]] = per_job.get(rep[0], 0) + 1
    return max(per_job.values()) if per_job else None
