"""What Slurm's own lines say about tasks, ranks and nodes.

`srun -l` prefixes each line with the task (`11: `), which is `SLURM_PROCID`. A task maps to a node
through `srun: error: NODE: task N: …`, a line in which the task names its host, or the job's
node list (`SLURM_JOB_NODELIST=gpu-node-[a-d]`, `NodeList=` of `scontrol show job`) with its tasks
per node under the default block distribution. A task maps to a rank through the rank it prints
(`[rank11]:`, `RANK=11`, `rank 11/16`); with one task per node (torchrun under srun) a task prints
several ranks and is a node, not a rank. The kernel's memory-cgroup lines name the Slurm task in
their cgroup path (`task_memcg=/slurm/uid_1000/job_4242/step_0/task_11`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from .hostlist import block_layout, expand_nodelist, expand_tasks, tasks_per_node
from .normalise import short_node

_SRUN_TASKS = re.compile(r"srun: error: ([A-Za-z][\w.\-]*): tasks? ([\d,\-]+): ")
_NODELISTS = tuple(
    re.compile(word + r"\s*[=:]\s*([\w.\-\[\],]+)")
    for word in ("SLURM_JOB_NODELIST", "SLURM_NODELIST", "NodeList")
)
_TPN = re.compile(r"SLURM_(?:STEP_)?TASKS_PER_NODE\s*[=:]\s*([\d(x),]+)")
_NTPN = re.compile(r"SLURM_NTASKS_PER_NODE\s*[=:]\s*(\d+)")
_NTASKS = tuple(
    re.compile(word + r"\s*[=:]\s*(\d+)") for word in ("SLURM_NTASKS", "SLURM_NPROCS", "NumTasks")
)
# A labelled line that also says which rank the task is.
_TASK_RANK = re.compile(
    r"^\s*(\d{1,6}): (?:\[rank(\d+)\]:|.*?(?:\bRANK\s*[=:]\s*(\d+)|\bglobal rank (\d+)"
    r"|\brank (\d+)/\d+))",
    re.MULTILINE,
)
_TASK_HOST = re.compile(
    r"^\s*(\d{1,6}): .*?\b(?:SLURMD_NODENAME|SLURM_TOPOLOGY_ADDR|host(?:name)?)\s*[=:]\s*"
    r"([A-Za-z][\w\-]*(?:\.[\w\-]+)*)",
    re.MULTILINE,
)
_LABELLED = re.compile(r"^ *\d{1,6}: ", re.MULTILINE)
_MEMCG = re.compile(
    r"task_memcg=\S*?job_(\d+)/step_(\w+)/(?:\S*?/)?task_(\d+)\S*?,task=[^,]*,pid=(\d+)"
)


@dataclass(slots=True)
class SlurmFacts:
    task_node: dict[int, str] = field(default_factory=dict)
    task_ranks: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    # (file, pid) → (job, step, task) from the kernel's memory-cgroup OOM lines.
    oom_tasks: dict[tuple[str, int], tuple[str, str, int]] = field(default_factory=dict)
    nodelist: list[str] = field(default_factory=list)
    per_node: list[int] = field(default_factory=list)
    ntasks: int | None = None

    def layout(self) -> dict[int, str]:
        """Task → node from the node list (block distribution), where it is known."""
        if not self.nodelist:
            return {}
        counts = self.per_node
        if not counts and self.ntasks and self.ntasks % len(self.nodelist) == 0:
            counts = [self.ntasks // len(self.nodelist)] * len(self.nodelist)
        return block_layout(self.nodelist, counts)

    def rank_of_task(self, task: int) -> tuple[int | None, bool]:
        """(rank, known): the one rank the task printed; None when it printed several (a
        launcher per node); the task itself (SLURM_PROCID) when it printed none."""
        ranks = self.task_ranks.get(task)
        if ranks:
            return (next(iter(ranks)), True) if len(ranks) == 1 else (None, True)
        if any(len(r) > 1 for r in self.task_ranks.values()):
            return None, False  # tasks are launchers here: an unlabelled rank is unknown
        return task, False


def scan(name: str, text: str, facts: SlurmFacts, *, head: int | None = None) -> None:
    """Add what one text says about Slurm's tasks to `facts`. The job's environment and its
    tasks' ranks and hosts are looked for in the first `head` characters (the start)."""
    end = len(text) if head is None else head
    if "srun: error: " in text:
        for m in _SRUN_TASKS.finditer(text):
            for task in expand_tasks(m.group(2)):
                facts.task_node.setdefault(task, short_node(m.group(1)) or m.group(1))
    if text.find("SLURM", 0, end) != -1 or text.find("NodeList", 0, end) != -1:
        _environment(text, end, facts)
    if _LABELLED.search(text, 0, min(end, 65_536)) is not None:  # `srun -l` output
        for m in _TASK_RANK.finditer(text, 0, end):
            rank = next(g for g in m.groups()[1:] if g)
            facts.task_ranks[int(m.group(1))].add(int(rank))
        for m in _TASK_HOST.finditer(text, 0, end):
            node = short_node(m.group(2))
            if node:
                facts.task_node.setdefault(int(m.group(1)), node)
    if "task_memcg=" in text:
        for m in _MEMCG.finditer(text):
            facts.oom_tasks[(name, int(m.group(4)))] = (m.group(1), m.group(2), int(m.group(3)))


def _environment(text: str, end: int, facts: SlurmFacts) -> None:
    for pattern in _NODELISTS:
        m = pattern.search(text, 0, end)
        if m is not None and not facts.nodelist:
            facts.nodelist = [short_node(h) or h for h in expand_nodelist(m.group(1))]
    m = _TPN.search(text, 0, end)
    if m is not None and not facts.per_node:
        facts.per_node = tasks_per_node(m.group(1))
    m = _NTPN.search(text, 0, end)
    if m is not None and not facts.per_node and facts.nodelist:
        facts.per_node = [int(m.group(1))] * len(facts.nodelist)
    for pattern in _NTASKS:
        m = pattern.search(text, 0, end)
        if m is not None and facts.ntasks is None:
            facts.ntasks = int(m.group(1))
