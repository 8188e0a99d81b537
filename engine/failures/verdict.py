"""Choosing the initiating event, its confidence and a suggested owner from resolved events.

Causal events (hardware, CUDA, transport, OOM, a Python exception that is not itself a timeout)
compete on corrected time; the earliest wins. Timeouts, launcher summaries, cancels and kills
are consequences and only stand in — with low confidence — when nothing causal was logged.
Flight Recorder findings and desync reports corroborate or, when the logs are silent, name the
suspect themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from .lines import APP_XIDS
from .model import UNNAMED_NODE, Event
from .owner import CUSTOMER, DECIDES, PROVIDER
from .rendezvous import owner_reason as rendezvous_reason
from .undecided import undecidable as _undecidable
from .undecided import undecided as _undecided
from .upper_bound import logged_before, upper_bound

_KIND_TIER = {
    "ecc": 0,
    "xid": 0,
    "cuda_error": 1,
    "oom": 1,
    "nccl_warn_transport": 1,
    "python_exception": 1,
    "collective_desync": 1,
    "collective_mismatch": 1,
    "missing_record": 2,
}
_IGNORED = frozenset({"nccl_init", "nccl_warn"})
# A rank that timed out or lost its peer waited.
_WAITING = frozenset({"nccl_timeout", "gloo", "peer_lost"})
_NEAR = timedelta(seconds=1)
_SAME_INCIDENT = timedelta(seconds=120)


def tier(e: Event) -> int:
    """0 hardware, 1 causal software/transport, 2 weak, 3 consequence, 9 not evidence."""
    if e.kind in _IGNORED:
        return 9
    if "tier" in e.detail:
        return int(e.detail["tier"])
    return _KIND_TIER.get(e.kind, 3)


def is_corroboration(e: Event) -> bool:
    """Cross-rank inferences (Flight Recorder, desync reports) are not logged *at* failure time."""
    return e.kind in ("collective_desync", "collective_mismatch")


@dataclass(slots=True)
class Verdict:
    event: Event | None = None
    rank: int | None = None
    node: str | None = None
    confidence: str = "low"
    reasons: list[str] = field(default_factory=list)
    owner: str = "undetermined"
    owner_reasons: list[str] = field(default_factory=list)


Clock = Callable[[Event], datetime | None]


def choose(
    events: list[Event],
    *,
    when: Clock,
    world_size: int | None,
    ip_nodes: dict[str, str],
    silent_ranks: list[int],
    node_of: Callable[[int], str | None] = lambda rank: None,
    waiting: Iterable[int] = (),
) -> Verdict:
    """`waiting`: ranks that Flight Recorder shows inside a collective nobody completed."""
    v = Verdict()
    causal = [e for e in events if tier(e) <= 1 and not is_corroboration(e) and not e.secondary]
    corroboration = [e for e in events if is_corroboration(e)]
    # At the same instant, a line's own time beats a neighbour's bound (it happened at or after).
    timed = sorted(
        (e for e in causal if when(e) is not None),
        key=lambda e: (when(e), bool(e.detail.get("time_inferred")), tier(e)),
    )
    earlier = logged_before(timed, (e for e in causal if when(e) is None)) if timed else None
    if earlier is not None:
        v.event, v.confidence = earlier, "medium"
        v.reasons.append(
            f"earliest causal event: {earlier.kind} ({earlier.source}:{earlier.line_no}), logged "
            f"before {_label(upper_bound(earlier))} and so before {timed[0].kind} "
            f"{stated_at(timed[0], when(timed[0]))}"
        )
    elif timed:
        first = _follow_peer(timed[0], timed, when, ip_nodes, v.reasons)
        v.event = first
        v.reasons.append(f"earliest causal event: {first.kind} {stated_at(first, when(first))}")
        _confidence_from_logs(v, first, timed, corroboration, when)
    elif causal:
        v.event = min(causal, key=tier)
        v.confidence = "medium"
        v.reasons.append(f"causal event without a timestamp: {v.event.kind}; order uncertain")
    elif corroboration:
        v.event = sorted(corroboration, key=lambda e: (e.kind != "collective_mismatch", e.rank))[0]
        v.confidence = "medium"
        v.reasons.append(
            f"no causal error in the logs; {v.event.detail.get('from', 'cross-rank')} evidence "
            f"names rank {v.event.rank}"
        )
    else:
        _fallback(v, events, when, ip_nodes, silent_ranks, node_of, world_size, set(waiting))
    if v.event is not None:
        v.rank = v.event.rank
        v.node = v.event.node
        if v.event.detail.get("why"):
            v.reasons.append(
                f"{v.event.detail.get('cause', v.event.kind)}: {v.event.detail['why']}"
            )
    _owner(v, events, when)
    return v


def _label(t: datetime | None) -> str:
    """'2024-05-01 12:00:00.123 UTC', as the pages show instants (times here are UTC)."""
    if t is None:
        return "an unknown time"
    ms = f".{t.microsecond // 1000:03d}" if t.microsecond else ""
    return f"{t:%Y-%m-%d %H:%M:%S}{ms} UTC"


def stated_at(e: Event, t: datetime | None) -> str:
    """'at <time>' for a line's own time. A time borrowed from a neighbouring line is no time
    of this one: only the bounds the neighbours give, and the order is uncertain."""
    if t is None or not e.detail.get("time_inferred"):
        return f"at {_label(t)}"
    low, high = e.detail.get("time_range") or [None, None]
    bounds = [
        f"{word} {_label(datetime.fromisoformat(b))}"
        for word, b in (("after", low), ("before", high))
        if b
    ]
    within = f" (logged {' and '.join(bounds)})" if bounds else ""
    return f"at a time inferred from neighbouring lines{within}; its order is uncertain"


def _follow_peer(
    first: Event, timed: list[Event], when: Clock, ip_nodes: dict[str, str], reasons: list[str]
) -> Event:
    """A transport error that names a peer whose own node failed at about the same time points
    at that peer (the healthy side of a broken link reports too)."""
    peer = ip_nodes.get(first.detail.get("peer_ip", ""))
    start = when(first)
    if first.kind != "nccl_warn_transport" or peer is None or start is None:
        return first
    for e in timed:
        t = when(e)
        if e.node == peer and t is not None and t - start <= _SAME_INCIDENT and e is not first:
            reasons.append(f"the first transport error (rank {first.rank}) names peer {peer}")
            return e
    return first


def _confidence_from_logs(
    v: Verdict, first: Event, timed: list[Event], corroboration: list[Event], when: Clock
) -> None:
    start = when(first)
    assert start is not None
    rivals = [
        e
        for e in timed
        if e.node != first.node and e.rank != first.rank and (when(e) or start) - start < _NEAR
        and e.kind != "nccl_warn_transport"
    ]  # fmt: skip
    fr_ranks = {e.rank for e in corroboration if e.rank is not None}
    v.confidence = "high"
    if rivals:
        v.confidence = "medium"
        r = rivals[0]
        v.reasons.append(
            f"another causal event on {r.node or 'another node'} (rank {r.rank}, {r.kind}) "
            "within a second: the order depends on clock accuracy"
        )
    if first.rank is None:
        v.confidence = "medium"
        v.reasons.append(
            "the initiating event names a node but no rank (no rank map for it)"
            if first.node
            else "the initiating event names neither a rank nor a node"
        )
    if first.detail.get("time_inferred"):
        v.confidence = "medium"
        v.reasons.append("the initiating line has no timestamp of its own")
    if first.kind == "remote_peer_failed":
        v.confidence = "medium"
        by = first.detail.get("reported_by") or []
        v.reasons.append(
            f"{first.node} is named by the NCCL socket error of rank(s) {by[:8] or '?'} "
            f"({first.source}:{first.line_no}), which lost their connection to it; no line "
            f"of {first.node}'s own says why, and those ranks are not blamed"
        )
    if fr_ranks and first.rank is not None and first.rank not in fr_ranks:
        v.confidence = "medium"
        v.reasons.append(
            f"Flight Recorder / desync evidence points at rank(s) {sorted(fr_ranks)[:8]}"
        )
    elif fr_ranks and first.rank in fr_ranks:
        v.reasons.append("Flight Recorder / desync evidence agrees on the same rank")


def _fallback(
    v: Verdict,
    events: list[Event],
    when: Clock,
    ip_nodes: dict[str, str],
    silent_ranks: list[int],
    node_of: Callable[[int], str | None],
    world_size: int | None = None,
    waiting: set[int] | None = None,
) -> None:
    v.confidence = "low"
    weak = sorted(
        (e for e in events if tier(e) == 2 and e.kind != "missing_record"),
        key=lambda e: (when(e) is None, when(e) or datetime.max),
    )
    missing = [e for e in events if e.kind == "missing_record" and e.detail.get("what") == "log"]
    peers = [ip_nodes.get(e.detail.get("peer_ip", "")) for e in events if e.kind == "gloo"]
    named = [p for p in peers if p]
    if weak:
        v.event = weak[0]
        v.reasons.append(f"only weak evidence: {weak[0].kind} ({weak[0].detail.get('cause')})")
    elif missing:
        _missing_only(v, events, missing, world_size, waiting or set())
    elif silent_ranks or named:
        node = max(set(named), key=named.count) if named else None
        on_node = [r for r in silent_ranks if node is None or node_of(r) == node]
        if on_node:
            rank = on_node[0]
            v.event = Event(None, rank, node_of(rank), "(inferred)", 0, "missing_record",
                            f"rank {rank} reported no timeout or lost peer while the others did",
                            {"what": "complaint", "tier": 2})  # fmt: skip
            v.reasons.append(
                f"nothing causal was logged; rank(s) {on_node[:8]} did not complain while the "
                "rest timed out or lost their peer — a rank that stopped participating does "
                "not wait"
            )
            if node is not None:
                v.reasons.append(f"gloo peers report connections closed by {node}")
        else:
            src = next(e for e in events if ip_nodes.get(e.detail.get("peer_ip", "")) == node)
            v.event = Event(when(src), None, node, src.source, src.line_no, "gloo", src.text,
                            dict(src.detail))  # fmt: skip
            v.reasons.append(f"gloo peers report connections closed by {node}")
    else:
        timeouts = [e for e in events if tier(e) < 9]
        if timeouts:
            v.reasons.append(
                "only consequences (timeouts, aborts, cancels) were found; the initiating rank "
                "cannot be told from them"
            )


def _missing_only(
    v: Verdict,
    events: list[Event],
    missing: list[Event],
    world_size: int | None,
    waiting: set[int],
) -> None:
    """A rank with no record is a suspect only when the rest of the world is there and timed
    out waiting for it; otherwise the bundle is simply incomplete and names no one."""
    absent = {e.rank for e in missing}
    waited = {e.rank for e in events if e.kind in _WAITING and e.rank not in absent}
    waited |= waiting - absent
    world = world_size or len(absent)
    if waited and len(absent) * 2 < world:
        v.event = missing[0]
        v.reasons.append(
            f"nothing causal was logged; rank {missing[0].rank} left no record at all while "
            f"{len(waited)} other rank(s) timed out or waited in a collective"
        )
        return
    ranks = sorted(r for r in absent if r is not None)
    why = "no rank reported a timeout or a lost peer" if not waited else "most ranks are absent"
    v.reasons.append(
        f"insufficient evidence to name an initiating rank: {why}, and {len(absent)} of "
        f"{world} ranks left no log or dump ({_spans(ranks)}); upload their logs or Flight "
        "Recorder dumps"
    )


def _spans(ranks: list[int]) -> str:
    """[2, 3, 4, 7] → 'ranks 2–4, 7' (the first 12 runs)."""
    runs: list[list[int]] = []
    for r in ranks:
        if runs and r == runs[-1][1] + 1:
            runs[-1][1] = r
        else:
            runs.append([r, r])
    text = ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in runs[:12])
    more = f" and {len(runs) - 12} more" if len(runs) > 12 else ""
    return ("rank " if len(ranks) == 1 else "ranks ") + text + more


def decide_owner(v: Verdict, events: list[Event], when: Clock) -> None:
    """The owner of `v`'s event afresh, for a verdict whose event was replaced."""
    v.owner, v.owner_reasons = "undetermined", []
    _owner(v, events, when)


def _owner(v: Verdict, events: list[Event], when: Clock) -> None:
    e = v.event
    if e is None:
        v.owner_reasons.append("no initiating event")
        formed = next((o for o in events if o.detail.get("rendezvous")), None)
        if formed is not None:  # the ranks that never joined left nothing to name
            v.owner_reasons.append(rendezvous_reason(formed.detail))
        return
    hardware = _hardware_near(e, events, when)
    if e.kind in ("xid", "ecc") and e.detail.get("xid") not in APP_XIDS:
        v.owner = PROVIDER
        v.owner_reasons.append(f"{_hardware_fault(e)} {_on(e.node)}")
    elif hardware is not None:
        v.owner = PROVIDER
        near = f"{_hardware_fault(hardware)} {_on(hardware.node)}"
        v.owner_reasons.append(f"{near} next to the {e.kind} of rank {e.rank}")
    elif e.kind == "nccl_warn_transport":
        v.owner = PROVIDER
        v.owner_reasons.append("network transport error (NET/IB or socket) first")
    elif _undecidable(e):
        v.owner_reasons.append(_undecided(e))
    elif e.kind == "scheduler" and e.detail.get("tier") == 0:
        v.owner = PROVIDER
        v.owner_reasons.append(f"node lost: {e.detail.get('cause')}")
    elif e.kind in ("python_exception", "collective_mismatch") or (
        e.kind == "oom" and (not e.detail.get("host_oom") or e.detail.get("limit"))
    ):
        v.owner = CUSTOMER
        v.owner_reasons.append(f"{e.kind} first with no hardware event near it")
    elif e.kind == "collective_desync":
        v.owner = CUSTOMER
        v.owner_reasons.append(
            "a rank skipped or added a collective while its node reported no hardware fault"
        )
    elif e.kind == "xid":
        v.owner_reasons.append(
            f"Xid {e.detail.get('xid')} is usually raised by the job's own kernels, but it is an "
            f"Xid; {DECIDES}: the same Xid from this code on another node (customer), or a "
            "failed GPU diagnostic on this one (provider)"
            + "".join(f"; {after}" for after in e.detail.get("followed_by", ()))
        )
    elif e.kind == "collective_error":
        v.owner = CUSTOMER
        v.owner_reasons.append(
            f"rank {e.rank}'s transport reports a collective mismatch ({e.detail.get('cause')})"
        )
    elif e.detail.get("category") in ("infrastructure", "job"):
        _by_category(v, e)
    elif e.kind == "launch_failure":
        v.owner_reasons.append(_undecided(e))
    elif e.detail.get("death"):
        _death_owner(v, e, events, when)
    else:
        v.owner_reasons.append(
            f"{e.kind} alone does not tell the provider's fault from the customer's; {DECIDES}: "
            "the node's kernel log (Xid, ECC, link down: provider), or a traceback or memory "
            "limit of the job's own (customer)"
            + (_SHM if e.kind == "signal" and e.detail.get("signal") == 7 else "")
        )


def _by_category(v: Verdict, e: Event) -> None:
    """The decoded line says which side of the matrix it falls on (a node the scheduler declared
    failed, a launch failure on it; a GPU given to two ranks, a job's own limit)."""
    infrastructure = e.detail["category"] == "infrastructure"
    v.owner = PROVIDER if infrastructure else CUSTOMER
    side = "the cluster's" if infrastructure else "the job's own"
    who = f"rank {e.rank}" if e.rank is not None else _on(e.node).removeprefix("on ")
    why = e.detail.get("category_reason")
    v.owner_reasons.append(
        f"{e.kind} on {who}: {side} fault by its decoded cause" + (f" ({why})" if why else "")
    )


def _hardware_fault(e: Event) -> str:
    """An Xid or ECC event as a reader names it: "Xid 79", "Xid 48 (ECC)", "ECC error"."""
    xid = e.detail.get("xid")
    if xid in (None, ""):
        return "ECC error" if e.kind == "ecc" else "Xid error"
    return f"Xid {xid} (ECC)" if e.kind == "ecc" else f"Xid {xid}"


def _on(node: str | None) -> str:
    return f"on {node or UNNAMED_NODE}"


def _hardware_near(e: Event, events: list[Event], when: Clock) -> Event | None:
    t = when(e)
    for other in events:
        if other.kind not in ("xid", "ecc") or other.detail.get("xid") in APP_XIDS:
            continue
        if other.secondary:  # an Xid the driver raised after another (`xid_chain`)
            continue
        if other.node != e.node or (e.rank is not None and other.rank not in (None, e.rank)):
            continue
        ot = when(other)
        if t is None or ot is None or abs(ot - t) <= _SAME_INCIDENT:
            return other
    return None


def _death_owner(v: Verdict, e: Event, events: list[Event], when: Clock) -> None:
    """A rank died by SIGKILL/SIGABRT/SIGSEGV/SIGBUS (an Xid/ECC next to it was handled before)."""
    death = e.detail["death"]
    near = [o for o in events if o is not e and _near(o, e, when)]
    rank = e.rank if e.rank is not None else f"? (local rank {e.detail.get('local_rank', '?')})"
    node = e.node or UNNAMED_NODE
    if death == "SIGKILL":
        ooms = [o for o in near if o.kind == "oom" and o.node == e.node]
        limit = next((o for o in ooms if o.detail.get("limit")), None)
        other = next((o for o in ooms if o.detail.get("other_process")), None)
        if limit is not None:
            v.owner = CUSTOMER
            v.owner_reasons.append(f"SIGKILL on rank {rank} with the job's own memory limit "
                                   f"hit on {node}: {limit.text[:120]}")  # fmt: skip
        elif other is not None:
            v.owner = PROVIDER
            v.owner_reasons.append(f"SIGKILL on rank {rank} while {node} ran out of memory "
                                   f"for another process: {other.text[:120]}")  # fmt: skip
        elif ooms:
            v.owner_reasons.append(f"SIGKILL on rank {rank} by the host's OOM killer on "
                                   f"{node}: the job's memory or the node's? "
                                   f"({ooms[0].text[:120]}); {DECIDES}: the cgroup the kill "
                                   "names (the job's own limit: customer)")  # fmt: skip
        else:
            v.owner_reasons.append(f"SIGKILL on rank {rank} with no OOM line on {node}: the "
                                   "OOM killer (no kernel log), a limit or an operator; upload "
                                   f"the node's kernel log; {DECIDES}: a memory-cgroup OOM of "
                                   "the job's limit (customer), a hardware fault "
                                   "(provider)")  # fmt: skip
        return
    if death == "SIGABRT":
        app = next((o for o in near if o.rank == e.rank and o.kind in _APP_FAULTS), None)
        if app is not None:
            v.owner = CUSTOMER
            v.owner_reasons.append(f"SIGABRT on rank {rank} after a collective mismatch: "
                                   f"{app.text[:160]}")  # fmt: skip
            return
    what = [o for o in near if o.rank == e.rank and o.kind in ("cpp_terminate", "signal")]
    found = "; ".join(f"{o.kind}: {o.text[:80]}" for o in what[:3]) or "nothing else"
    v.owner_reasons.append(
        f"{death} on rank {rank} with no Xid/ECC on {node} and no mismatch message: "
        f"undetermined (also on that rank: {found}); {DECIDES}: the node's kernel log (Xid, "
        "ECC: provider) or the rank's own backtrace or core dump in the job's code (customer)"
        + (_SHM if death == "SIGBUS" else "")
    )


# A process touching shared memory past the end of a full tmpfs gets SIGBUS, not ENOSPC: NCCL's
# segments and DataLoader workers fill Docker's default 64 MB /dev/shm this way.
_SHM = (
    "; a SIGBUS is also what a rank gets when /dev/shm is too small for NCCL's or a "
    "DataLoader's shared memory (a container's default is 64 MB): `df -h /dev/shm` where the "
    "rank ran, and who sized it (the container's `--shm-size`, the pod's /dev/shm volume)"
)


_APP_FAULTS = frozenset({"collective_error", "collective_mismatch", "collective_desync"})


def _near(other: Event, e: Event, when: Clock) -> bool:
    t, ot = when(e), when(other)
    return t is None or ot is None or abs(ot - t) <= _SAME_INCIDENT
