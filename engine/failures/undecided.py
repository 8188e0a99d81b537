"""Failures no single line decides the owner of: a lost peer, a preemption, a time limit, a
container or pod that never started, a full disk, a container's exit code. Each reason names
what would decide it."""

from __future__ import annotations

from .model import UNNAMED_NODE, Event
from .owner import DECIDES
from .ray import owner_reason as ray_oom_reason
from .ray_actor import owner_reason as ray_node_reason
from .ray_actor import stopped as ray_node_stopped
from .storage import DISK_FULL, disk_full_owner
from .unterminated import owner_reason as unterminated_reason


def undecidable(e: Event) -> bool:
    """An event no line decides the owner of, whose reason names what would (`undecided`)."""
    if e.kind == "remote_peer_failed" or (e.kind == DISK_FULL and "category" not in e.detail):
        return True
    if (e.kind == "oom" and e.detail.get("ray")) or ray_node_stopped(e):
        return True
    return e.kind == "scheduler" and bool(
        e.detail.get("first_exit") or _preempted(e) or e.detail.get("time_limit")
    )


def _preempted(e: Event) -> bool:
    """Set by the reader of each scheduler's words (Slurm's cancel, sacct, Kubernetes)."""
    return bool(e.detail.get("preempted"))


def undecided(e: Event) -> str:
    """A lost peer, a preemption, a container that did not start or a container's exit code:
    what would tell whose fault it is."""
    if e.kind == "launch_failure" and e.detail.get("launch") == "schedule":
        return (
            f"{e.detail.get('cause')}; {DECIDES}: what holds the GPUs the pod asked for (the "
            "buyer's own other pods, or a request larger than a node: customer; nodes of the "
            "allocation missing or out of service: provider)"
        )
    if e.kind == "launch_failure" and e.detail.get("launch") == "allocation":
        return (
            f"{e.detail.get('cause')}; {DECIDES}: what the job asked for against what the "
            "contract gives (`scontrol show job`, the partition's limits): a request beyond "
            "it is the customer's, contracted capacity refused is the provider's"
        )
    if e.kind == "launch_failure":
        return (
            f"{e.detail.get('cause')}; {DECIDES}: the engine log pyxis prints with it (the "
            "image's own start-up failing: customer; a mount, a user mapping or the container "
            "runtime on the node refusing: provider)"
        )
    if ray_node_stopped(e):
        return ray_node_reason(e, e.node or UNNAMED_NODE)
    if _preempted(e):
        return (
            f"the scheduler preempted the job; {DECIDES}: the job that took its nodes (Slurm: "
            "`sacct` state PREEMPTED, `scontrol show job`; Kubernetes: the preempting pod's "
            "namespace and priority class): one of the buyer's own of higher priority "
            "(customer), or the provider reclaiming reserved nodes (provider, under the "
            "contract's reclaim terms)"
        )
    if e.kind == DISK_FULL:
        return disk_full_owner(DECIDES)
    if e.kind == "oom" and e.detail.get("ray"):
        return ray_oom_reason(e.node or UNNAMED_NODE)
    if e.detail.get("time_limit"):
        return (
            f"the scheduler ended the job at its time limit; {DECIDES}: the run's step times "
            "against the fixture's baseline (slower than agreed, or stalled by the cluster: "
            "provider) or a limit shorter than the run needed (customer)"
        )
    if e.detail.get("unterminated"):
        return unterminated_reason(e)
    if e.kind == "remote_peer_failed":
        return (
            f"{e.node} dropped its NCCL connections: its process exited or the network to it "
            f"failed; {DECIDES}: {e.node}'s own log and kernel log (the job crashing or running "
            "out of its memory: customer; a link down, an Xid, the node lost: provider)"
        )
    return (
        f"{e.detail.get('cause')}: the exit code alone does not say whose fault; {DECIDES}: "
        "the pod's `kubectl describe` (Last State reason OOMKilled: the job's own memory "
        "limit, customer) and its node's kernel log (Xid, ECC: provider)"
    )
