"""How many ranks the job had: what the job's own records state, before the ranks its logs
happen to show. A bundle holds the logs of some ranks only; the ranks it lacks are exactly
what a size counted from the logs would hide.

Stated sizes, the largest wins (a sub-communicator is never larger than the world):
the caller's; an uploaded rank map; NCCL's init lines of a communicator that is not a
sub-communicator (`comm 0x… rank 3 nranks 8 … Init COMPLETE`, `comm 0x… rank 3 nRanks 8
nNodes 1`); what the job and its scheduler print (`WORLD_SIZE`, `world_size`, torchrun's
`global_world_sizes`, the default process group's `size:`, `SLURM_NTASKS`, `srun -n`, the
PyTorchJob's replicas); Flight Recorder's default group. Only when none is stated does the
highest rank seen count, and a rank seen past a stated size means the size was not the world's.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import MAX_WORLD_SIZE, FailureInputError
from .model import Event
from .rankmap import is_split, split_comms


@dataclass(frozen=True, slots=True)
class World:
    size: int | None
    source: str  # where the size comes from, in a reader's words ("" when unknown)


def nccl_world(events: list[Event]) -> int | None:
    """The largest communicator size NCCL states for a communicator that is not a
    sub-communicator. A sub-communicator's line says so (`ncclCommSplit … parent 0x…`, or the
    same communicator's split line), or its global rank (its `[rankN]:` prefix, its file, its
    node and GPU) differs from its rank in the communicator."""
    splits = split_comms(events)
    sizes = [
        e.detail["nranks"]
        for e in events
        if e.kind == "nccl_init"
        and isinstance(e.detail.get("nranks"), int)
        and not is_split(e, splits)
        and (e.rank is None or e.rank == e.detail.get("comm_rank"))
    ]
    return max(sizes) if sizes else None


def world_of(
    *,
    given: int | None,
    stated: list[tuple[int | None, str]],
    mapped: int | None,
    highest: int | None,
) -> World:
    """The caller's size, else the largest stated one, else the ranks the logs place on nodes.
    `stated`: (size, what states it); `mapped`: the size of the rank map the logs complete;
    `highest`: the highest rank any event names."""
    if given is not None:
        return World(given, "as given with the analysis")
    sizes = [(s, why) for s, why in stated if s]
    if not sizes:
        if not mapped:
            return World(None, "")
        counted = max(mapped, highest + 1 if highest is not None else 0)
        world = World(counted, "counted from the ranks the logs show; nothing states it")
    elif highest is not None and highest >= max(s for s, _ in sizes):
        size, why = max(sizes, key=lambda p: p[0])
        world = World(
            highest + 1, f"rank {highest} is in the logs, past the {size} ranks {why} states"
        )
    else:
        size, why = max(sizes, key=lambda p: p[0])
        world = World(size, f"stated by {why}")
    if world.size is not None and world.size > MAX_WORLD_SIZE:
        raise FailureInputError(
            f"The evidence implies {world.size:,} ranks ({world.source}); at most "
            f"{MAX_WORLD_SIZE:,} are analysed."
        )
    return world
