"""The task a Slurm step was cancelled for, when srun's lines name only the others.

With `--kill-on-bad-exit`, slurmstepd cancels a step the moment one task fails
(`*** STEP 52222788.0 ON nid002888 CANCELLED AT … DUE TO TASK FAILURE ***`) and srun reports the
tasks it then ended (`srun: error: nid002888: tasks 0-57,59-63: Terminated`). srun usually names
the failed task too (`task 58: Exited with exit code 1`); where it does not, the task missing from
the Terminated list is the one that had already ended: weak evidence (it ended first; the log
does not say why), never a verdict on whose fault it was.
"""

from __future__ import annotations

from .hostlist import expand_tasks
from .model import Event
from .slurm import SlurmFacts

# More tasks missing than this share of the listed ones is a list cut short, not one that failed.
_MAX_MISSING_SHARE = 8


def unterminated(events: list[Event], facts: SlurmFacts) -> list[Event]:
    """One weak event per task a step cancelled for a task failure did not terminate."""
    out: list[Event] = []
    cancels = [
        e for e in events if e.kind == "scheduler" and e.detail.get("cause") == "task failure"
    ]
    for cancel in cancels:
        if sum(c.source == cancel.source for c in cancels) > 1:
            continue  # srun's lists do not say which of the file's steps they belong to
        srun = [e for e in events if e.source == cancel.source and e.kind == "scheduler"
                and e.detail.get("tasks")]  # fmt: skip
        ended = {t for e in srun if e.detail.get("signal") == 15 for t in _tasks(e)}
        if not ended or any(e.detail.get("signal") != 15 for e in srun):
            continue  # srun names the task that failed itself
        gaps = [t for t in range(max(ended)) if t not in ended]
        if not gaps or len(gaps) * _MAX_MISSING_SHARE > len(ended):
            continue
        hosts = {e.node for e in srun if e.node}
        out.extend(_event(cancel, t, facts, hosts) for t in gaps)
    return out


def _tasks(e: Event) -> list[int]:
    return expand_tasks(str(e.detail["tasks"]))


def _event(cancel: Event, task: int, facts: SlurmFacts, hosts: set[str]) -> Event:
    rank, _ = facts.rank_of_task(task)
    node = facts.task_node.get(task) or facts.layout().get(task)
    if node is None and len(hosts) == 1:
        node = next(iter(hosts))
    before = cancel.time_utc.isoformat() if cancel.time_utc else None
    step = cancel.detail.get("step")
    detail = {
        "task": task, "rank_from": "task", "step": step, "unterminated": True,
        "first_exit": True, "secondary": False, "tier": 2, "time_range": [None, before],
        "cause": f"task {task} had ended when step {step} was cancelled for a task failure",
    }  # fmt: skip
    text = (
        f"task {task} is missing from the tasks srun terminated when step {step} was cancelled "
        "for a task failure: it had already ended"
    )
    return Event(None, rank, node, cancel.source, cancel.line_no, "scheduler", text, detail)


def owner_reason(e: Event) -> str:
    """Why the task the step was cancelled for stays undetermined, and what decides it."""
    return (
        f"task {e.detail.get('task')} ended before Slurm cancelled step {e.detail.get('step')} "
        "for a task failure, and the log does not say how; what would decide it: that task's own "
        "output (its traceback or exit code: customer) and its node's kernel log (an Xid, ECC, "
        "an OOM kill of the host: provider)"
    )
