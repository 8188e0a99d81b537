"""`analyse(sources)`: from a failed run's files to the initiating rank, its evidence and the
ranks that merely waited. Pure Python; the Django side stores the result of `to_json()`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from . import launch, peers
from .attempts import (
    AttemptFailure,
    Attempts,
    by_attempt,
    headline,
    headline_json,
    headline_summary,
    read_attempts,
)
from .calibration import calibrate
from .deaths import (
    ambiguous_lines,
    launcher_reason,
    mark_deaths,
    watchdog_disagreement,
    weigh_hangs,
)
from .decoded import categorise
from .errors import MAX_WORLD_SIZE, FailureInputError, world_size_problem
from .flightrec import FlightRecorderResult, Mismatch, analyse_dumps, default_ranks
from .frreport import looks_like_report, report_events
from .intake import Intake, take
from .model import Event, SourceFile
from .normalise import normalise_text
from .placement import (
    KERNEL_LOG_NAME,
    node_from_path,
    place_events,
    uncomplaining_ranks,
    unrecorded_ranks,
)
from .rankmap import RankMap, derive_rank_map, parse_gpu_list
from .report import SecondaryGroup, chain, group, timeline
from .scheduler import read_scheduler
from .skew import ClockSkew, estimate_skew
from .timestamps import LogYear, log_year
from .unpickle import rank_from_name
from .unterminated import unterminated
from .verdict import choose
from .worldsize import World, nccl_world, world_of
from .xid_chain import chain_xids


@dataclass(slots=True)
class Analysis:
    first_failure: Event | None
    initiating_rank: int | None
    initiating_node: str | None
    confidence: str  # high | medium | low
    reasons: list[str]
    candidates: list[dict[str, Any]]  # other ranks the evidence leaves open (not when high)
    chain: list[Event]
    secondaries: list[SecondaryGroup]
    secondary_ranks: list[int]
    missing: list[str]
    missing_ranks: list[int]
    missing_dumps: list[int]
    incomplete_dumps: list[int]
    flight_recorder: str  # absent | incomplete | mismatch | desync | hang | consistent
    mismatches: list[Mismatch]
    suggested_owner: str  # provider | customer | undetermined (the handoff terms' words)
    owner_reasons: list[str]
    skew: list[ClockSkew]
    launcher_root_cause: Event | None
    timeline: list[Event]
    world_size: int | None
    refused: list[dict[str, str]] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    # torchrun's elastic attempts: the headline's (None when the logs show no restart), how
    # many restarts, the other attempts' first failures, and which one heads: the failure
    # that ended the job ("ending") or the first ever ("ever").
    attempt: int | None = None
    restarts: int = 0
    attempts: list[AttemptFailure] = field(default_factory=list)
    first: str = "ending"
    world_from: str = ""  # what states the world size, or how it was counted

    def summary(self) -> str:
        return headline_summary(self, attempt=self.attempt)

    def to_json(self) -> dict[str, Any]:
        return {
            **headline_json(self),
            "missing_ranks": self.missing_ranks,
            "missing_dumps": self.missing_dumps,
            "incomplete_dumps": self.incomplete_dumps,
            "flight_recorder": self.flight_recorder,
            "missing": self.missing,
            "mismatches": [
                {"seq": m.seq, "pg": m.pg, "field": m.field, "ranks": m.ranks, "values": m.values}
                for m in self.mismatches
            ],
            "clock_skew": [s.to_json() for s in self.skew],
            "timeline": [e.to_json() for e in self.timeline],
            "world_size": self.world_size,
            "world_size_from": self.world_from,
            "refused": self.refused,
            "stats": self.stats,
            "attempt": self.attempt,
            "restarts": self.restarts,
            "attempts": [a.to_json() for a in self.attempts],
            "first": self.first,
        }


def analyse(
    sources: Iterable[SourceFile],
    *,
    rank_map: RankMap | None = None,
    world_size: int | None = None,
    year: int | None = None,
    tz: tzinfo = UTC,
    first_ever: bool = False,
    received: datetime | None = None,
) -> Analysis:
    """Analyse a failed run. `year`/`tz` apply to log timestamps that carry neither; without
    `year`, such a stamp is dated near the latest date the logs write, else no later than
    `received` (when the files arrived; now by default).

    A job that torchrun restarted is analysed attempt by attempt: the failure that ended the
    job heads the result, the earlier attempts' first failures follow (`attempts`);
    `first_ever` puts the first attempt's failure at the head instead.

    `sources` is read once, in order, and may be a generator (`iter_bundle`, `iter_paths`)."""
    if world_size is not None and (problem := world_size_problem(world_size)):
        raise FailureInputError(problem)
    bundle = _read(sources, rank_map=rank_map, year=year, received=received)
    logs = _log_events(bundle, tz=tz)
    dumps = _flight_recorder(bundle, logs, world=_world(bundle, logs, world_size))
    unrecorded = _unrecorded(bundle, logs, dumps)
    events = [*logs.events, *dumps.events, *unrecorded.events]
    logs.attempts.place(events)
    clock = _one_clock(events)
    failures = [
        _attempt_failure(attempt, evs, clock, logs=logs, dumps=dumps)
        for attempt, evs in by_attempt(events, logs.attempts.restarts).items()
    ]
    return _result(
        bundle, events, clock, failures, dumps=dumps, unrecorded=unrecorded,
        restarts=logs.attempts.restarts, first_ever=first_ever,
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Bundle:
    """Every file routed, the caller's rank map merged with the uploaded one, the year for
    timestamps that carry none."""

    got: Intake
    rank_map: RankMap
    year: int | LogYear  # the caller's, else read from the logs' dates or the clock


def _read(
    sources: Iterable[SourceFile],
    *,
    rank_map: RankMap | None,
    year: int | None,
    received: datetime | None,
) -> _Bundle:
    got = take(sources)
    explicit = got.explicit
    if rank_map is not None:
        rank_map.update(explicit)
        explicit = rank_map
    if year is None:
        now = received or datetime.now(UTC)
        return _Bundle(got, explicit, log_year((t for _, t in got.texts), now=now))
    return _Bundle(got, explicit, year)


@dataclass(frozen=True, slots=True)
class _LogEvents:
    """The logs' events, each placed on a rank and a node where the evidence allows."""

    events: list[Event]
    rank_map: RankMap  # the bundle's, completed from what the logs say
    kernel_nodes: frozenset[str]  # nodes whose kernel log (Xid/ECC) was uploaded
    attempts: Attempts  # where torchrun's restarts split the logs
    declared_world: int | None = None  # WORLD_SIZE, rank N/M, SLURM_NTASKS, replicas
    mapped_world: int | None = None  # the uploaded rank map's


def _log_events(bundle: _Bundle, *, tz: tzinfo) -> _LogEvents:
    rmap = bundle.rank_map
    mapped = rmap.world_size()
    sched = read_scheduler(bundle.got.texts, tz=tz)
    bundle.got.missing.extend(sched.notes)
    known = rmap.nodes() | sched.nodes()
    events: list[Event] = []
    kernel_nodes: set[str] = set()
    for name, text in bundle.got.texts:
        if looks_like_report(text):
            found, problems = report_events(name, text)
            events.extend(found)
            bundle.got.missing.extend(problems)
        node = node_from_path(name, known)
        evs = normalise_text(
            text,
            source=name,
            year=bundle.year,
            tz=tz,
            rank=rank_from_name(name, require_rank_word=True),
            node=node,
            skip=sched.read_lines.get(name, frozenset()),
        )
        if node and (KERNEL_LOG_NAME.search(name) or any(e.kind in ("xid", "ecc") for e in evs)):
            kernel_nodes.add(node)
        events.extend(evs)
    events.extend(sched.events)
    sched.place(events)
    events.extend(unterminated(events, sched.slurm))
    authoritative = {r: i.node for r, i in rmap.ranks.items() if i.node}
    rmap.update(derive_rank_map(events))
    rmap.update(sched.rank_map())
    for f in bundle.got.gpu_lists:
        node = node_from_path(f.name, rmap.nodes())
        if node:
            rmap.gpus.update(parse_gpu_list(f.data, node=node))
    place_events(events, rmap, authoritative)
    launch.place(events)
    events.extend(peers.suspects(events, ip_nodes=rmap.ips, ranks_on=rmap.ranks_on))
    chain_xids(events)
    categorise(events)
    attempts = read_attempts(bundle.got.texts, year=bundle.year, tz=tz)
    attempts.place(events)
    # A rank that waited in one attempt did not necessarily wait in the next.
    for attempt, evs in by_attempt(events, attempts.restarts).items():
        mark_deaths(evs)
        weigh_hangs(evs)
        for e in watchdog_disagreement(evs):
            if attempts.restarts:
                e.detail.setdefault("attempt", attempt)
            events.append(e)
    return _LogEvents(events, rmap, frozenset(kernel_nodes), attempts, sched.world_size(), mapped)


def _world(bundle: _Bundle, logs: _LogEvents, given: int | None) -> World:
    """The caller's world size, else the largest stated one, else the ranks the logs show."""
    fr = default_ranks(bundle.got.collectives.dumps)
    reported = [e.detail["world_size"] for e in logs.events if "world_size" in e.detail]
    ranks = [e.rank for e in logs.events if e.rank is not None and e.rank < MAX_WORLD_SIZE]
    return world_of(
        given=given,
        stated=[
            (logs.mapped_world, "the uploaded rank map"),
            (nccl_world(logs.events), "NCCL's init lines"),
            (logs.declared_world, "the job's or the scheduler's own output"),
            (max(fr) + 1 if fr else None, "Flight Recorder's default process group"),
            (max(reported, default=None), "torchfrtrace's report on the default process group"),
        ],
        mapped=logs.rank_map.world_size(),
        highest=max(ranks, default=None),
    )


@dataclass(frozen=True, slots=True)
class _Dumps:
    """What the Flight Recorder dumps add: their findings, the world size they imply, and the
    ranks that left no dump at all (an incomplete dump is still a dump)."""

    result: FlightRecorderResult
    world_size: int | None
    absent: list[int]
    events: list[Event]
    missing: list[str]
    world_from: str = ""


def _flight_recorder(bundle: _Bundle, logs: _LogEvents, *, world: World) -> _Dumps:
    got, rmap, world_size = bundle.got, logs.rank_map, world.size
    fr = analyse_dumps(got.collectives, got.dump_sources, world_size=world_size)
    world_from = world.source
    if world_size is None and (got.collectives.dumps or got.incomplete_dumps):
        world_size = max([*got.collectives.dumps, *got.incomplete_dumps, *fr.missing_dumps]) + 1
        world_from = "counted from the Flight Recorder dumps; nothing states it"
    if world_size is not None and world_size > MAX_WORLD_SIZE:
        raise FailureInputError(
            f"The evidence implies {world_size:,} ranks (from the rank map, the NCCL init lines "
            f"or the dump names); at most {MAX_WORLD_SIZE:,} are analysed."
        )
    for e in fr.events:
        e.node = e.node or rmap.node_of(e.rank) if e.rank is not None else e.node
    absent = [r for r in fr.missing_dumps if r not in got.incomplete_dumps]
    events = [e for e in fr.events if e.kind != "missing_record" or e.rank in absent]
    for rank, why in sorted(got.incomplete_dumps.items()):
        events.append(
            Event(None, rank, rmap.node_of(rank), got.dump_sources[rank], 0, "incomplete_dump",
                  f"Flight Recorder dump of rank {rank} is incomplete ({why})",
                  {"what": "flight recorder dump", "tier": 3, "secondary": True, "cause": why})
        )  # fmt: skip
    missing = [f"no Flight Recorder dump for rank {r}" for r in absent[:64]]
    if len(absent) > 64:
        missing.append(f"... and {len(absent) - 64} more ranks without a dump")
    return _Dumps(fr, world_size, absent, events, missing, world_from)


@dataclass(frozen=True, slots=True)
class _Unrecorded:
    """Ranks of the world that no log line, file name or dump mentions."""

    ranks: list[int]
    events: list[Event]
    missing: list[str]


def _unrecorded(bundle: _Bundle, logs: _LogEvents, dumps: _Dumps) -> _Unrecorded:
    got = bundle.got
    recorded = set(got.collectives.dumps) | set(got.incomplete_dumps)
    ranks = unrecorded_ranks(
        dumps.world_size, [*logs.events, *dumps.events], got.texts, got.names, recorded
    )
    events = [
        Event(None, rank, logs.rank_map.node_of(rank), "(bundle)", 0, "missing_record",
              f"no log or dump for rank {rank}", {"what": "log", "tier": 2})
        for rank in ranks
    ]  # fmt: skip
    return _Unrecorded(ranks, events, [f"no log or dump for rank {r}" for r in ranks[:64]])


@dataclass(frozen=True, slots=True)
class _Clock:
    """One clock for every node: each event's time less its node's estimated skew, where the
    anchors agree on one."""

    skew: list[ClockSkew]
    offsets: dict[str, timedelta]

    def when(self, e: Event) -> datetime | None:
        if e.time_utc is None:
            return None
        return e.time_utc - self.offsets[e.node] if e.node in self.offsets else e.time_utc


def _one_clock(events: list[Event]) -> _Clock:
    skew = estimate_skew(events)
    return _Clock(skew, {s.node: timedelta(seconds=s.offset_s) for s in skew if s.applied})


def _attempt_failure(
    attempt: int, events: list[Event], clock: _Clock, *, logs: _LogEvents, dumps: _Dumps
) -> AttemptFailure:
    """One attempt's initiating event with its rank, node, owner and confidence, the
    launcher's own root cause, and why, including what evidence would have helped."""
    when, rmap = clock.when, logs.rank_map
    silent = uncomplaining_ranks(events, dumps.world_size)
    verdict = choose(events, when=when, world_size=dumps.world_size, ip_nodes=rmap.ips,
                     silent_ranks=silent, node_of=rmap.node_of,
                     waiting=dumps.result.waiting)  # fmt: skip
    roots = [e for e in events if e.kind == "launcher_summary" and e.detail.get("root_cause")]
    root = min(roots, key=lambda e: (when(e) is None, when(e) or datetime.max.replace(tzinfo=UTC)),
               default=None)  # fmt: skip
    candidates = calibrate(verdict, events, when=when, launcher_root=root)
    reasons = list(verdict.reasons)
    for s in clock.skew:
        verb = "corrected" if s.applied else "not corrected (anchors disagree)"
        reasons.append(f"clock skew: {s.node} is {s.offset_s:+.1f} s off; {verb}")
    if root is not None:
        own = any(e.rank == root.rank and e.kind == "python_exception" and not e.secondary
                  for e in events)  # fmt: skip
        reasons.append(launcher_reason(root, verdict.rank, own_traceback=own))
    unplaced = ambiguous_lines(events)
    if unplaced:
        reasons.append(
            f"{unplaced} line(s) name only a local rank (torchrun's [default1]: prefix, or a "
            "launcher's 'failed (exitcode: -9) local_rank: 5') in a log that does not say which "
            "node wrote them: their rank is unknown; upload one log per node or a rank map"
        )
    missing: list[str] = []
    kind = verdict.event.kind if verdict.event else None
    if verdict.node and kind in ("cuda_error", "oom") and verdict.node not in logs.kernel_nodes:
        missing.append(f"no kernel log (Xid/ECC) for {verdict.node}")
    if kind == "collective_desync" and (verdict.node or "") not in logs.kernel_nodes:
        # A rank stuck behind the others on a hung GPU looks the same in its dump.
        where = verdict.node or f"rank {verdict.rank}'s node"
        missing.append(f"no kernel log (Xid/ECC) for {where}: a GPU hang is not ruled out")
    groups, secondary_ranks = group(events, verdict.rank, when)
    return AttemptFailure(
        attempt=attempt, first_failure=verdict.event, initiating_rank=verdict.rank,
        initiating_node=verdict.node, confidence=verdict.confidence, reasons=reasons,
        suggested_owner=verdict.owner, owner_reasons=verdict.owner_reasons,
        candidates=candidates, chain=chain(events, verdict.event, root, groups, when),
        secondaries=groups, secondary_ranks=secondary_ranks, launcher_root_cause=root,
        missing=missing, restarts=logs.attempts.restarts,
    )  # fmt: skip


def _attempts_reason(head: AttemptFailure, failures: list[AttemptFailure], restarts: int) -> str:
    others = [f"{f.attempt} (rank {f.initiating_rank})" for f in failures
              if f is not head and f.first_failure is not None]  # fmt: skip
    which = "the first failure of the run" if head.attempt == 0 else "the failure that ended it"
    listed = f"; the other attempts' first failures: {', '.join(others)}" if others else ""
    return (
        f"torchrun restarted the job {restarts} time(s): this is {which}, in attempt "
        f"{head.attempt}{listed}"
    )


def _result(
    bundle: _Bundle,
    events: list[Event],
    clock: _Clock,
    failures: list[AttemptFailure],
    *,
    dumps: _Dumps,
    unrecorded: _Unrecorded,
    restarts: int,
    first_ever: bool,
) -> Analysis:
    got, fr = bundle.got, dumps.result
    head = headline(failures, first_ever=first_ever)
    reasons = list(head.reasons)
    if restarts:
        reasons.insert(0, _attempts_reason(head, failures, restarts))
    return Analysis(
        first_failure=head.first_failure,
        initiating_rank=head.initiating_rank,
        initiating_node=head.initiating_node,
        confidence=head.confidence,
        reasons=reasons,
        candidates=head.candidates,
        chain=head.chain,
        secondaries=head.secondaries,
        secondary_ranks=head.secondary_ranks,
        missing=[*got.missing, *dumps.missing, *unrecorded.missing, *head.missing],
        missing_ranks=unrecorded.ranks,
        missing_dumps=dumps.absent,
        incomplete_dumps=sorted(got.incomplete_dumps),
        flight_recorder=_fr_status(
            len(got.collectives.dumps),
            got.incomplete_dumps,
            fr,
            reported=any(_fr_reported(e) for e in events),
        ),
        mismatches=fr.mismatches,
        suggested_owner=head.suggested_owner,
        owner_reasons=head.owner_reasons + list(fr.notes),
        skew=clock.skew,
        launcher_root_cause=head.launcher_root_cause,
        timeline=timeline(events, clock.when),
        world_size=dumps.world_size,
        world_from=dumps.world_from,
        refused=got.refused,
        stats={
            "files": got.files,
            "used": got.used,
            "bytes": got.bytes,
            "events": len(events),
            "dumps": len(got.collectives.dumps),
        },
        attempt=head.attempt if restarts else None,
        restarts=restarts,
        attempts=[f for f in failures if f is not head and f.first_failure is not None],
        first="ever" if first_ever else "ending",
    )


def _fr_reported(e: Event) -> bool:
    return e.kind == "collective_desync" and e.detail.get("from") == "fr_trace report"


def _fr_status(
    loaded: int, incomplete: dict[int, str], fr: FlightRecorderResult, *, reported: bool = False
) -> str:
    """What the Flight Recorder part can claim: `absent` (no dump at all), `incomplete` (only
    broken dumps), `mismatch`, `desync` (someone never entered, or ran ahead), `hang` (all
    entered, none completed), `consistent` (every dump read and nothing found). A finding in the
    dumps that were read stands; absent one, a broken dump leaves the set `incomplete`, since the
    rank that died while dumping may be the one that diverged. A `torchfrtrace` report that
    names missing ranks is a desync found from dumps the bundle need not hold."""
    if not loaded:
        return "desync" if reported else ("incomplete" if incomplete else "absent")
    if fr.mismatches:
        return "mismatch"
    if any(e.kind == "collective_desync" for e in fr.events):
        return "desync"
    if fr.stuck:
        return "hang"
    return "incomplete" if incomplete else "consistent"
