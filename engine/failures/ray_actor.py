"""Ray's report of an actor lost with its node, in the words Ray's exceptions print.

`ray.get` on a dead actor raises `ray.exceptions.RayActorError` (`ActorDiedError` since Ray 2.10)
whose message is a block: the headline, the actor's fields one per tab-indented line (the node's
address among them, `\\tip: 10.0.3.17`), then the GCS's cause. When the node went away:

    ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.
    \\tclass_name: RayTrainWorker
    \\tactor_id: 9bd6…
    \\tpid: 4242
    \\tip: 10.0.3.17
    The actor died because its node has died. Node Id: 3a5e…
    \\tthe actor's node was terminated unexpectedly: health check failed due to missing too many
    heartbeats

Older Ray says `The actor is dead because its node has died. Node Id: …` and no reason. A node
terminated unexpectedly (or with no reason given) was lost: the cluster's. One terminated
expectedly was stopped on purpose (`ray stop`, the autoscaler scaling down, a drain), and one
preempted was reclaimed (a spot instance): whose decision that was, the line does not say.
The block is printed on the driver; the node it names is the one that died, not the driver's.
"""

from __future__ import annotations

import re
from typing import Any

from .model import INFRASTRUCTURE, Event
from .owner import DECIDES

# Literals that bring a line to `decode` (see `lines.ANCHORS`).
ANCHORS = ("The actor died unexpectedly", "because its node has died")

_HEAD = re.compile(
    r"\b((?:ray\.exceptions\.)?(?:RayActorError|ActorDiedError)): "
    r"The actor died unexpectedly before finishing this task"
)
_NODE_DIED = re.compile(
    r"The actor (?:is dead|died) because its node has died\.(?: Node Id: (\w+))?"
)
_WHY = re.compile(
    r"the actor's node was (terminated expectedly|terminated unexpectedly|preempted): ?(.*?)"
    r"(?=\s+(?:\w+: |The actor )|$)"
)
_IP = re.compile(r"(?:^|\s)ip: (\d{1,3}(?:\.\d{1,3}){3})\b")
_FIELD = re.compile(r"\s*\w+: ")
# The block's lines after its headline: the actor's fields (tab-indented), the cause's message and
# its reason. At most this many.
MAX_BLOCK_LINES = 16


def opens_block(body: str) -> bool:
    """A line that starts the exception's block (its headline)."""
    return _HEAD.search(body) is not None


def continues_block(body: str) -> bool:
    """A line after the headline that still belongs to the block."""
    if not body.strip():
        return False
    if body[:1] == "\t" or (body[:1] == " " and _FIELD.match(body)):
        return True
    return body.startswith(("The actor ", "the actor's "))


def decode(body: str) -> tuple[str, dict[str, Any]] | None:
    """An actor lost with its node, from the block joined into one line (or the cause alone)."""
    died = _NODE_DIED.search(body)
    if died is None:
        return None
    ip = _IP.search(body)
    why = _WHY.search(body)
    how = why.group(1) if why else "terminated unexpectedly"
    reason = why.group(2).strip()[:160] if why else ""
    where = ip.group(1) if ip else "its node"
    detail: dict[str, Any] = {"ray": True, "ray_node": how}
    if ip is not None:
        detail["node_ip"] = ip.group(1)
    if died.group(1):
        detail["ray_node_id"] = died.group(1)
    head = _HEAD.search(body)
    if head is not None:
        detail["exc_type"] = head.group(1)
    said = f" ({reason})" if reason else ""
    if how == "terminated unexpectedly":
        detail.update(
            tier=0, secondary=False, category=INFRASTRUCTURE,
            cause=f"Ray lost the actor's node {where}{said}",
            category_reason=f"Ray reports the actor's node {where} lost{said}: the node",
        )  # fmt: skip
        return "node_crash", detail
    detail.update(
        tier=2, secondary=False, cause=f"Ray's node {where} was {how}{said}",
        preempted=how == "preempted", ray_reason=reason,
    )  # fmt: skip
    return "scheduler", detail


def stopped(e: Event) -> bool:
    """A node Ray reports stopped on purpose or preempted: no side by the line alone."""
    return e.detail.get("ray_node") in ("terminated expectedly", "preempted")


def owner_reason(e: Event, node: str) -> str:
    """Why a node Ray reports stopped or preempted stays undetermined, and what decides it."""
    if e.detail.get("ray_node") == "preempted":
        return (
            f"Ray reports the actor's node {node} preempted (its autoscaler drained it for "
            f"preemption); {DECIDES}: the instance's own record (a spot or preemptible VM the "
            "buyer chose: customer; reserved capacity the provider reclaimed: provider)"
        )
    said = f" ({e.detail['ray_reason']})" if e.detail.get("ray_reason") else ""
    return (
        f"Ray reports the actor's node {node} terminated expectedly{said}, stopped on purpose; "
        f"{DECIDES}: who stopped it, in the Ray autoscaler's log (monitor.log) and the node's "
        "own shutdown record (the job's autoscaler scaling down or `ray stop`: customer; the "
        "provider's maintenance or drain: provider)"
    )
