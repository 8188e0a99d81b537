"""Scheduler and orchestrator evidence as first-class inputs: Slurm, Kubernetes, and any line that
names a rank's host or the world's size.

`read_scheduler(texts)` reads every log once for what it says about tasks, pods, nodes and the
world size; `SchedulerEvidence.place(events)` then gives each event its rank and node from that
(a Slurm task through its rank, a pod through its node) and its time where Kubernetes knows it,
and ties Slurm's memory-cgroup OOM to the task it killed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import Any

from . import kube, kube_events, slurm
from .errors import MAX_WORLD_SIZE
from .model import Event
from .normalise import short_node, split_prefixes
from .rankmap import RankInfo, RankMap
from .sacct import looks_like_sacct, sacct_events

# Each pattern starts with a literal, so `re` scans for it at C speed (an alternation or a
# leading `\b` would be tried at every position of a 100 MB log).
_HOSTS = tuple(
    (word, re.compile(word + r"(?:name)?\s*[=:]\s*([A-Za-z][\w\-]*(?:\.[\w\-]+)*)"))
    for word in ("host", "SLURMD_NODENAME", "node")
)
_RANK_OF = re.compile(r"\bRANK\s*[=:]\s*(\d+)|\brank (\d+)/(\d+)|\brank[=:]\s*(\d+)")
_SIZES = (
    ("WORLD_SIZE", re.compile(r"WORLD_SIZE\s*[=:]\s*(\d+)")),
    ("rank ", re.compile(r"rank \d+/(\d+)")),
    # `world_size=8`, Megatron's `world_size ..... 8`; not `group_world_size=1` (torchrun's
    # node count) nor a sub-group's `tp_world_size`.
    ("world_size", re.compile(r"(?<!\w)world_size\s*(?:[=:]|\.{3,})\s*(\d+)")),
    ("global_world_sizes", re.compile(r"global_world_sizes=\[(\d+)")),  # torchrun's rendezvous
    # The store's host, when the others never came: `… 1/3 clients joined.`
    ("joined", re.compile(r"\d+/(\d+) (?:clients|workers) joined")),
    # PyTorch's default process group (PG 0) as it starts; other groups are sub-groups.
    ("initialization options", re.compile(
        r"\[PG (?:ID )?0\b[^\]\n]*\] ProcessGroupNCCL initialization options: size: (\d+)"
    )),
)  # fmt: skip
_HEAD = 4 * 1024 * 1024
_NTASKS = re.compile(r"SLURM_NTASKS\s*[=:]\s*(\d+)")
# `srun -n 16 …`, `srun --ntasks=16 …`, `#SBATCH --ntasks=16` (not `--ntasks-per-node`).
_SRUN_N = re.compile(r"(?:srun|#SBATCH)\b[^\n]*?\s(?:-n\s*|--ntasks[=\s]\s*)(\d+)\b")


@dataclass(slots=True)
class SchedulerEvidence:
    slurm: slurm.SlurmFacts = field(default_factory=slurm.SlurmFacts)
    pods: dict[str, kube.Pod] = field(default_factory=dict)
    file_pods: dict[str, str] = field(default_factory=dict)  # per-pod log → pod
    rank_nodes: dict[int, str] = field(default_factory=dict)  # any line's `host=` for a rank
    declared_sizes: set[int] = field(default_factory=set)  # WORLD_SIZE, rank N/M
    task_sizes: set[int] = field(default_factory=set)  # SLURM_NTASKS
    events: list[Event] = field(default_factory=list)  # sacct's steps, Kubernetes events
    read_lines: dict[str, set[int]] = field(default_factory=dict)  # lines read as table rows
    notes: list[str] = field(default_factory=list)  # what the reader should know it lacks

    def nodes(self) -> set[str]:
        out = set(self.slurm.task_node.values()) | set(self.slurm.nodelist)
        out |= {p.node for p in self.pods.values() if p.node}
        return out | set(self.rank_nodes.values())

    def world_size(self) -> int | None:
        """What the job says (WORLD_SIZE, rank N/M), else Slurm's task count when tasks are
        ranks, else the PyTorchJob's replica count."""

        # A number past the analysable world is some other count, never the job's size.
        def fits(sizes: Iterable[int | None]) -> list[int]:
            return [s for s in sizes if s and s <= MAX_WORLD_SIZE]

        declared = fits([*self.declared_sizes, *(p.world_size for p in self.pods.values())])
        if declared:
            return max(declared)
        launchers = any(len(r) > 1 for r in self.slurm.task_ranks.values())
        if fits(self.task_sizes) and not launchers:
            return max(fits(self.task_sizes))
        return kube.replica_count(self.pods)

    def rank_map(self) -> RankMap:
        """Rank → node from Slurm's tasks, the pods and any line that names a rank's host."""
        out = RankMap(derived=True)
        layout = self.slurm.layout()
        for task in sorted({*layout, *self.slurm.task_node}):
            rank, _ = self.slurm.rank_of_task(task)
            node = self.slurm.task_node.get(task) or layout.get(task)
            if rank is not None and node:
                out.ranks.setdefault(rank, RankInfo(rank, node))
        for pod in self.pods.values():
            if pod.rank is not None and pod.node:
                out.ranks.setdefault(pod.rank, RankInfo(pod.rank, pod.node))
            if pod.ip and pod.node:
                out.ips.setdefault(pod.ip, pod.node)
        for rank, node in self.rank_nodes.items():
            out.ranks[rank] = RankInfo(rank, node)  # the job's own word beats a layout
        for rank in [r for r in out.ranks if r >= MAX_WORLD_SIZE]:
            del out.ranks[rank]  # a task id or a number that is no rank of an analysable world
        return out

    def place(self, events: list[Event]) -> None:
        """Rank, node and time of each event from the scheduler's view (see the module doc)."""
        layout = self.slurm.layout()
        for e in events:
            _task(self.slurm, layout, e)
            _pod(self, e)
        _tie_slurm_ooms(self.slurm, layout, events)
        listings = {t.source for p in self.pods.values() for t in p.terminations}
        by_source: dict[str, list[Event]] = {s: [] for s in listings}
        for e in events:
            if e.source in by_source:
                by_source[e.source].append(e)
        for pod in self.pods.values():
            for t in pod.terminations:
                _termination(pod, t, by_source[t.source], events)


def read_scheduler(texts: Iterable[tuple[str, str]], *, tz: tzinfo = UTC) -> SchedulerEvidence:
    out = SchedulerEvidence()
    texts = list(texts)
    rows: list[kube_events.Row] = []
    for name, text in texts:
        # A job prints its environment, ranks and sizes as it starts, and listings are small:
        # only srun's errors, kernel OOM lines and host pins are looked for in a whole log.
        head = min(len(text), _HEAD)
        slurm.scan(name, text, out.slurm, head=head)
        kube.scan(name, text, out.pods)
        if looks_like_sacct(text):
            out.events.extend(sacct_events(name, text, tz=tz))
        rows.extend(kube_events.read_rows(name, text))
        _sizes_and_hosts(text, head, out)
    kube_events.register_pods(rows, out.pods)
    # Without any Kubernetes listing, a log named `gpu-worker-3.log` is a node's, not a pod's.
    for name, text in texts if out.pods else ():
        pod = kube.pod_of_file(name, out.pods)
        if pod is None or kube.is_listing(text):
            continue
        out.file_pods[name] = pod
        info = out.pods.setdefault(pod, kube.Pod(pod))
        rank = kube.printed_rank(text)
        if rank is not None:
            info.rank, info.rank_from = rank, "log"
    kube.assign_ranks(out.pods)
    out.events.extend(kube_events.row_events(rows, out.pods))
    out.read_lines = kube_events.consumed_lines(rows)
    out.notes.extend(kube_events.unnamed(rows))
    return out


def _sizes_and_hosts(text: str, head: int, out: SchedulerEvidence) -> None:
    for literal, pattern in _SIZES:
        if text.find(literal, 0, head) != -1:
            out.declared_sizes.update(int(n) for n in pattern.findall(text, 0, head))
    if text.find("SLURM_NTASKS", 0, head) != -1:
        out.task_sizes.update(int(n) for n in _NTASKS.findall(text, 0, head))
    if text.find("srun", 0, head) != -1 or text.find("#SBATCH", 0, head) != -1:
        out.task_sizes.update(int(n) for n in _SRUN_N.findall(text, 0, head))
    for word, pattern in _HOSTS:
        # `hostname` contains `host`; SLURMD_NODENAME is printed with the environment.
        if word == "hostname" or text.find(word, 0, head if word.isupper() else None) == -1:
            continue
        for m in pattern.finditer(text):
            if m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] == "_"):
                continue  # `ghost=`, `MASTER_host=`: not a word of its own
            _pin(text, m, out)


def _pin(text: str, m: re.Match[str], out: SchedulerEvidence) -> None:
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.end())
    line = text[start : end if end != -1 else len(text)]
    info, body = split_prefixes(line)
    rank = _rank_in(body, info)
    node = short_node(m.group(1))
    if rank is not None and node:
        out.rank_nodes.setdefault(rank, node)


def _rank_in(body: str, info: dict[str, Any]) -> int | None:
    """The rank a line is about: its `RANK=`/`rank N/M`/`rank=` words, else its `[rankN]:`
    prefix. A bare `srun -l` task label is not a rank here (`slurm.scan` reads those)."""
    m = _RANK_OF.search(body)
    if m is not None:
        return int(next(g for g in (m.group(1), m.group(2), m.group(4)) if g))
    if info.get("rank_from") in ("task", "pg"):
        return None
    rank = info.get("rank")
    return rank if isinstance(rank, int) else None


def _task(facts: slurm.SlurmFacts, layout: dict[int, str], e: Event) -> None:
    """An `srun -l` label or an `srun: error: NODE: task N` line names the task: its rank is
    the rank that task printed (or SLURM_PROCID), its node the task's node."""
    task = e.detail.get("task")
    if not isinstance(task, int):
        return
    if e.detail.get("rank_from") == "task":
        e.rank, _ = facts.rank_of_task(task)
    if e.node is None:
        e.node = facts.task_node.get(task) or layout.get(task)


def _pod(ev: SchedulerEvidence, e: Event) -> None:
    """A pod's hostname is its name: the event's node is the pod's Kubernetes node. A per-pod
    log gives its pod's rank, and a restarted container's log comes after the first one ended."""
    host_pod = ev.pods.get(e.node) if e.node else None
    if host_pod is not None or (ev.pods and e.node and kube.is_replica_name(e.node)):
        e.detail.setdefault("pod", e.node)
        e.node = host_pod.node if host_pod else None
    name = ev.file_pods.get(e.source)
    if name is None:
        return
    pod = ev.pods[name]
    e.detail.setdefault("pod", name)
    if e.rank is None and pod.rank is not None:
        e.rank = pod.rank
        e.detail.setdefault("rank_from", f"pod {name} ({pod.rank_from})")
    if e.node is None:
        e.node = pod.node
    ended = pod.ended()
    if pod.restarts and not kube.is_previous(e.source):
        # Whatever the restarted container says, the first failure already happened.
        e.detail.update(after_restart=True, secondary=True, tier=3)
        if ended is not None and (e.time_utc is None or e.time_utc < ended):
            e.time_utc = ended
            e.detail.update(time_range=[ended.isoformat(), None], time_inferred=True,
                            time_from=f"after {name}'s first container ended")  # fmt: skip


def _tie_slurm_ooms(facts: slurm.SlurmFacts, layout: dict[int, str], events: list[Event]) -> None:
    """The kernel's memory-cgroup lines name the Slurm task (`task_memcg=…/task_11`); Slurm's
    `Detected N oom_kill event in StepId=J.S` names only the step, and takes the task that the
    kernel or srun names for that step when there is exactly one."""
    killed: dict[str, set[int]] = {}
    for e in events:
        found = facts.oom_tasks.get((e.source, e.detail.get("pid", -1)))
        if e.kind == "oom" and found is not None:
            job, step, task = found
            e.detail.update(task=task, slurm_step=f"{job}.{step}", limit=True)
            e.rank, _ = facts.rank_of_task(task)
            e.node = e.node or facts.task_node.get(task) or layout.get(task)
            killed.setdefault(f"{job}.{step}", set()).add(task)
    srun_ooms = {e.detail["task"] for e in events if e.detail.get("oom") and "task" in e.detail}
    srun_kills = {
        e.detail["task"]
        for e in events
        if e.kind == "scheduler" and e.detail.get("signal") == 9 and "task" in e.detail
    }
    for e in events:
        named = e.detail.get("slurm_step")
        if e.kind != "oom" or "task" in e.detail or not isinstance(named, str):
            continue
        step = named
        tasks = killed.get(step) or srun_ooms or srun_kills
        if len(tasks) == 1:
            task = next(iter(tasks))
            e.detail.update(task=task, tied_to=f"task {task}, the one task killed in step {step}")
            e.rank, _ = facts.rank_of_task(task)
            e.node = e.node or facts.task_node.get(task) or layout.get(task)
        elif tasks:
            e.detail["tasks"] = sorted(tasks)[:64]
    _after_the_kill(events)


def _after_the_kill(events: list[Event]) -> None:
    """Slurm's report of an OOM kill (`Detected … oom_kill event`, `task 11: Killed`) has no
    timestamp, and its neighbours' lower bound may precede the kernel's own line for that kill:
    a report comes after what it reports, so its lower bound is the kernel's time."""
    kernel: dict[int, datetime] = {}
    for e in events:
        task, t = e.detail.get("task"), e.time_utc
        if e.kind == "oom" and "pid" in e.detail and isinstance(task, int) and t is not None:
            kernel[task] = min(t, kernel.get(task, t))
    for e in events:
        task, bounds = e.detail.get("task"), e.detail.get("time_range")
        if not isinstance(task, int) or task not in kernel or not bounds or e.time_utc is None:
            continue
        if e.kind not in ("oom", "scheduler") or e.time_utc >= kernel[task]:
            continue
        if bounds[1] is None or datetime.fromisoformat(bounds[1]) >= kernel[task]:
            e.time_utc = kernel[task]
            bounds[0] = kernel[task].isoformat()
            e.detail["time_from"] = "after the kernel's OOM kill it reports"


def _termination(
    pod: kube.Pod, t: kube.Termination, listed: list[Event], events: list[Event]
) -> None:
    """The lines of a `State`/`Last State: Terminated` block are one container's end: its
    pod's rank and node, and the `Finished` time. An end that no line rule read (`Reason:
    Error`, `Exit Code: 1`) becomes an event of its own."""
    block = [e for e in listed if t.first_line <= e.line_no <= t.last_line]
    if not block and t.reason != "Completed":
        detail: dict[str, Any] = {"cause": t.reason, "secondary": True, "tier": 3}
        if t.exit_code is not None:
            detail["exitcode"] = t.exit_code
            if t.exit_code > 128:
                detail["signal"] = t.exit_code - 128
        block = [Event(None, None, None, t.source, t.first_line, "scheduler",
                       f"container of {pod.name} terminated: {t.reason}, exit code "
                       f"{t.exit_code if t.exit_code is not None else '?'}", detail)]  # fmt: skip
        events.append(block[0])
    for e in block:
        e.rank = pod.rank if e.rank is None else e.rank
        e.node = pod.node
        e.detail.update(pod=pod.name, reason=t.reason, restart_count=pod.restarts)
        if t.exit_code is not None:
            e.detail["exit_code"] = t.exit_code
        if t.finished is not None:
            e.time_utc = t.finished
            e.detail["time_from"] = "container Finished"
            for key in ("time_range", "time_inferred"):
                e.detail.pop(key, None)
