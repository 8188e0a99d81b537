"""A job that never started: the program could not be run, or its container did not start.

* The dynamic loader: `prog: error while loading shared libraries: libfoo.so.1: cannot open
  shared object file: No such file or directory` (the task then exits 127). A library the job
  brings is the job's side: its build, its image or its environment. The GPU driver's own
  libraries (`libcuda.so.1`, `libnvidia-ml.so.1`, …) are the node's: its driver, or the container
  runtime that mounts them into the job's container.
* The shell or Slurm cannot find the program: `bash: torchrun: command not found`,
  `slurmstepd: error: execve(): python3: No such file or directory`: the job's.

A shell's or the loader's line is weak evidence, the cause only when nothing causal follows: a
helper the job runs may fail so (`bash: module: command not found` heads many healthy logs)
while the job goes on. It is causal when srun says the tasks exited with 126 or 127, as a
program that could not run does. Slurm's, pyxis's and srun's own lines end the step: causal.
* pyxis, Slurm's container plugin (https://github.com/NVIDIA/pyxis), with enroot beneath it:
  `pyxis: container start failed with error code: 1`, `pyxis: couldn't start container`,
  `pyxis: failed to import docker image`. Whose fault depends on why, which pyxis prints below
  as its engine log (`pyxis:     …`): the image's own start-up, or the node's mounts, user
  mapping and runtime. Left undetermined, saying what decides it.
* srun, when the node's slurmd could not start the task: `srun: error: Task launch for
  StepId=4412.0 failed on node gpu-a09: Communication connection failure` (Slurm's own error
  text: `Job prolog failed`, `Job credential expired`, `Slurmd could not connect IO`, …). The node
  could not launch it: the cluster's side, except `Slurmd could not execve job`, the job's program.
* Slurm refusing the job's request before it ran: `srun: error: Unable to allocate resources:
  Requested node configuration is not available` (likewise an invalid GRES, account, partition
  or QOS, a time limit past the partition's, more memory than a node has). The request is the
  job's; a controller that did not answer (`Socket timed out on send/recv operation`) is the
  cluster's; any other refusal stays undetermined.
* The site's prolog, the script Slurm runs on each node before a job (often a health check),
  failing: slurmd's `error: [job 4412] prolog failed status=1:0`, the node then drained with
  the reason `Prolog error` (`sinfo -R`), the job held as `launch failed requeued held`. The
  cluster's side: its own script refused the node.
"""

from __future__ import annotations

import re
from typing import Any

from .model import INFRASTRUCTURE, JOB, Event

# Literals that bring a line to `decode` (see `lines.ANCHORS`).
ANCHORS = (
    "shared librar",
    "command not found",
    "execve()",
    "pyxis: ",
    "Task launch for",
    "prolog failed",
    "Prolog error",
    "launch failed requeued held",
    "Unable to allocate resources",
)

_LOADER = re.compile(
    r"(?:(\S+?):\s+)?error while loading shared libraries: (\S+?): cannot open shared object file"
)
_DRIVER_LIB = re.compile(r"^lib(?:cuda|nvidia-[\w-]+|nvcuvid|nvoptix)\.so")
_NOT_FOUND = re.compile(r"(?:^|\s)\S+?: (?:line \d+: )?([^\s:]+): command not found")
_EXECVE = re.compile(r"execve\(\): ([^\s:]+): No such file or directory")
_TASK_LAUNCH = re.compile(r"Task launch for (?:StepId=)?(\S+) failed on node ([^\s:]+): (.+)")
_PROLOG = re.compile(r"\[job (\d+)\] prolog failed status=(\d+):(\d+)")
# `sinfo -R`: REASON, USER, TIMESTAMP, NODELIST.
_PROLOG_DRAINED = re.compile(r"^\s*Prolog error\s+\S+\s+\S+\s+(\S+)\s*$")
_ALLOCATE = re.compile(r"Unable to allocate resources: (.+)")
# Slurm's own words for a request no node or policy of the cluster can take as asked.
_BAD_REQUEST = re.compile(
    r"node configuration is not available|Invalid (?:generic resource|account|partition|qos)"
    r"|violates accounting/QOS policy|Requested time limit is invalid|Memory required by task"
    r"|More processors requested than permitted|Invalid feature specification",
    re.I,
)
# The controller itself not answering: the cluster's Slurm, not the request.
_CONTROLLER = re.compile(
    r"Socket timed out on send/recv|Unable to contact slurm controller|Zero Bytes were transmitted",
    re.I,
)
_PYXIS = re.compile(
    r"pyxis: (container start failed[^\n]*|couldn't start container|failed to import docker "
    r"image[^\n]*)"
)


def decode(body: str) -> tuple[str, dict[str, Any]] | None:
    """A launch failure's kind and detail, or None when the line is not one."""
    m = _TASK_LAUNCH.search(body)
    if m is not None:
        return "launch_failure", _task_launch(step=m.group(1), host=m.group(2), why=m.group(3))
    found = _prolog(body) or _allocation(body)
    if found is not None:
        return "launch_failure", found
    m = _LOADER.search(body)
    if m is not None:
        program, library = m.group(1) or "the program", m.group(2)
        detail: dict[str, Any] = {
            "tier": 2,  # weak: a helper the job runs may fail so and the job go on
            "launch": "library",
            "library": library,
            "cause": f"{program.rsplit('/', 1)[-1]} could not load {library}",
        }
        if _DRIVER_LIB.match(library):
            detail["category"] = INFRASTRUCTURE
            detail["category_reason"] = (
                f"{library} is the GPU driver's own library: the node's driver, or the "
                "container runtime that mounts it into the job, is missing it"
            )
        else:
            detail["category"] = JOB
            detail["category_reason"] = (
                f"{library} is not the GPU driver's: the job's build, image or environment lacks it"
            )
        return "launch_failure", detail
    execve = _EXECVE.search(body)  # Slurm could not start the task itself
    m = execve or _NOT_FOUND.search(body)
    if m is not None:
        return "launch_failure", {
            # A shell's `module: command not found` early in a log is common and harmless:
            # weak evidence, the cause only when nothing causal follows.
            "tier": 1 if execve else 2,
            "launch": "program",
            "program": m.group(1),
            "cause": f"{m.group(1)} was not found where the job ran",
            "category": JOB,
            "category_reason": f"the job's command {m.group(1)} is not installed in its image "
            "or on its PATH",
        }
    m = _PYXIS.search(body)
    if m is not None:
        return "launch_failure", {
            "tier": 1,
            "launch": "container",
            "cause": f"the job's container did not start (pyxis: {m.group(1).strip()[:160]})",
        }
    return None


def _prolog(body: str) -> dict[str, Any] | None:
    detail: dict[str, Any] = {
        "tier": 1,
        "launch": "prolog",
        "category": INFRASTRUCTURE,
        "category_reason": "the prolog is the cluster's own script, run on the node before the "
        "job: a health check or a set-up step of the site's refused the node",
    }
    m = _PROLOG.search(body)
    if m is not None:
        status = f"exit status {m.group(2)}" if m.group(3) == "0" else f"signal {m.group(3)}"
        return detail | {"cause": f"the node's prolog failed before job {m.group(1)} ({status})"}
    m = _PROLOG_DRAINED.search(body)
    if m is not None:
        named = {"host": m.group(1)} if re.fullmatch(r"[\w.-]+", m.group(1)) else {}
        return detail | named | {"cause": f"Slurm drained {m.group(1)}: its prolog failed"}
    if "launch failed requeued held" in body:
        return detail | {
            "tier": 2,
            "cause": "Slurm could not launch the job on its nodes and held it (launch failed "
            "requeued held)",
        }
    return None


def _allocation(body: str) -> dict[str, Any] | None:
    m = _ALLOCATE.search(body)
    if m is None:
        return None
    why = m.group(1).strip()[:160]
    detail: dict[str, Any] = {
        "tier": 1,
        "launch": "allocation",
        "cause": f"Slurm refused the job's request ({why})",
    }
    if _BAD_REQUEST.search(why):
        detail["category"] = JOB
        detail["category_reason"] = "the job asked for what no node or policy of the cluster gives"
    elif _CONTROLLER.search(why):
        detail["category"] = INFRASTRUCTURE
        detail["category_reason"] = "the cluster's Slurm controller did not answer"
    return detail


def _task_launch(*, step: str, host: str, why: str) -> dict[str, Any]:
    why = why.strip()[:160]
    detail: dict[str, Any] = {
        "tier": 1,
        "launch": "node",
        "step": step,
        "host": host,
        "cause": f"the node could not launch step {step}'s tasks ({why})",
    }
    if "execve" in why:
        detail["launch"] = "program"
        detail["category"], detail["category_reason"] = JOB, "the job's program could not be run"
    else:
        detail["category"] = INFRASTRUCTURE
        detail["category_reason"] = f"Slurm's daemon on {host} could not start the job's tasks"
    return detail


def place(events: list[Event]) -> None:
    """A launch failure printed without a task label is placed by srun's exit lines in the same
    file (`srun: error: nid001234: task 0: Exited with exit code 1`): on their host when they
    name one, and on their task when one line names one."""
    exits: dict[str, list[Event]] = {}
    for e in events:
        if e.kind == "scheduler" and e.detail.get("tasks") and e.detail.get("host"):
            exits.setdefault(e.source, []).append(e)
    for e in events:
        found = exits.get(e.source)
        if e.kind != "launch_failure" or e.node is not None or not found:
            continue
        hosts = {x.node or x.detail["host"] for x in found}
        if len(hosts) != 1:
            continue
        e.node = hosts.pop()
        e.detail["tasks"] = ",".join(str(x.detail["tasks"]) for x in found)
        e.detail["node_from"] = f"srun's exit line ({found[0].source}:{found[0].line_no})"
        if e.rank is None and len(found) == 1 and found[0].rank is not None:
            e.rank = found[0].rank
        if any(x.detail.get("exitcode") in (126, 127) for x in found):
            e.detail["tier"] = 1  # the tasks exited as a program that could not run does
