"""IB port error counters (`perfquery`, `ibqueryerrors`) against the agreed limits: a link that
flaps or corrupts symbols under load shows up here long before NCCL times out on it.

The counters are cumulative since the port's last reset, so one reading says little about the
burn-in itself. Where a node's evidence holds two readings of a port (two files in the order
they were collected, or a perfquery file that reads each port twice), the burn-in is judged by
the difference between the first and the last reading. A counter lower in the later reading was
reset in between: the later reading (counts since that reset, all of them within the burn-in)
is judged as read, and the result says so. A single reading is judged as read, and the result
says that it is not a difference.

Only the counters the fixture limits are judged; a counter the evidence does not show is said
to be unknown rather than passed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from engine.evidence.checks.hardware import make
from engine.evidence.checks.model import CheckResult, EvidenceItem, Status
from engine.evidence.checks.spec import DEFAULT_THRESHOLDS, Spec
from engine.evidence.parsers.ibqueryerrors import IbqueryerrorsResult
from engine.evidence.parsers.perfquery import PerfqueryResult

NAMES = {"perfquery": "perfquery: error counters", "ibqueryerrors": "ibqueryerrors: error counters"}
NAME = NAMES["perfquery"]


def limits(spec: Spec) -> dict[str, int]:
    agreed = spec.thresholds.get("ib_counter_max")
    table: Mapping[str, object] = (
        agreed if isinstance(agreed, Mapping) else DEFAULT_THRESHOLDS["ib_counter_max"]
    )
    return {
        str(k): int(v)
        for k, v in table.items()
        if isinstance(v, int | float) and not isinstance(v, bool)
    }


@dataclass(frozen=True)
class Port:
    label: str
    counters: Mapping[str, int]
    line: int | None
    item: EvidenceItem
    host: str | None = None


def _no_bound(counter: str) -> int | None:
    return None


@dataclass(frozen=True)
class Reading:
    """One reading of a set of ports: one file, or one pass of a perfquery file over its ports.

    `lists_all`: every port read is shown (perfquery); ibqueryerrors shows only the ports with
    a counter above its threshold, and `bound` says what a counter it does not show is at most.
    """

    item: EvidenceItem
    ports: dict[str, Port]
    lists_all: bool = True
    bound: Callable[[str], int | None] = _no_bound

    def value(self, key: str, counter: str) -> int | None:
        port = self.ports.get(key)
        if port is not None and counter in port.counters:
            return port.counters[counter]
        return 0 if self.bound(counter) == 0 else None


def _perfquery_readings(item: EvidenceItem, result: PerfqueryResult) -> list[Reading]:
    """The n-th block of a port goes to the n-th reading: a collector that reads every port
    before and after the workload into one file leaves two readings."""
    passes: list[dict[str, Port]] = []
    for p in result.ports:
        key = f"{p.lid}:{p.port}:{'x' if p.extended else ''}"
        n = next((i for i, ports in enumerate(passes) if key not in ports), len(passes))
        if n == len(passes):
            passes.append({})
        passes[n][key] = Port(p.label, p.counters, p.line, item)
    return [Reading(item, ports) for ports in passes]


def _ibq_reading(item: EvidenceItem, result: IbqueryerrorsResult) -> Reading:
    """A switch's "port ALL" row sums the ports listed after it: judged only when it stands
    alone, so one port's errors are not counted twice."""
    detailed = {p.guid for p in result.ports if p.port is not None}
    ports = {
        f"{p.guid}:{p.port}": Port(p.label, p.counters, p.line, item, p.host)
        for p in result.ports
        if p.port is not None or p.guid not in detailed
    }
    return Reading(item, ports, lists_all=False, bound=result.bound)


def _collected(item: EvidenceItem) -> str | None:
    origin = item.parsed.origin if item.parsed is not None else None
    return origin.collected if origin is not None else None


def readings(items: Sequence[EvidenceItem]) -> list[Reading]:
    """Every reading of one node's counter files, earliest first: by the collector's time where
    every file has one, else in upload order."""
    stamped = [_collected(i) for i in items]
    order = list(range(len(items)))
    if all(stamped):
        order.sort(key=lambda n: str(stamped[n]))
    out: list[Reading] = []
    for n in order:
        parsed = items[n].parsed
        if isinstance(parsed, PerfqueryResult):
            out.extend(_perfquery_readings(items[n], parsed))
        elif isinstance(parsed, IbqueryerrorsResult):
            out.append(_ibq_reading(items[n], parsed))
    return out


@dataclass
class Judged:
    over: list[tuple[Port, str, int, int]] = field(default_factory=list)
    unknown: dict[str, str] = field(default_factory=dict)  # counter -> why it is unknown
    resets: list[str] = field(default_factory=list)
    unpaired: list[str] = field(default_factory=list)  # ports the first reading does not show
    readings: int = 1


def _unknown_why(reading: Reading, counter: str, bound: int | None) -> str:
    result = reading.item.parsed
    if isinstance(result, IbqueryerrorsResult):
        if not result.complete:
            return "the output stops before the '## Suppressed:' line that ends it (cut short)"
        if counter in result.suppressed:
            return "it was suppressed (-s)"
        return f"the tool's threshold file lets it reach {bound} unshown"
    return "the output does not show it"


def _judge_port(
    judged: Judged, first: Reading, last: Reading, key: str, table: Mapping[str, int]
) -> None:
    port = last.ports.get(key) or first.ports[key]
    for counter, limit in table.items():
        after = last.value(key, counter)
        if after is None:
            bound = last.bound(counter)
            if bound is None or bound > limit:
                judged.unknown.setdefault(counter, _unknown_why(last, counter, bound))
            continue
        before = first.value(key, counter) if first is not last else None
        if before is None and first is not last and port.label not in judged.unpaired:
            judged.unpaired.append(port.label)
        if before is not None and after < before:
            judged.resets.append(f"{port.label} {counter} went down from {before} to {after}")
        elif before is not None:
            after -= before
        if after > limit:
            judged.over.append((port, counter, after, limit))


def judge(found: Sequence[Reading], table: Mapping[str, int]) -> Judged:
    """The first reading against the last (or the one reading as read)."""
    first, last = found[0], found[-1]
    judged = Judged(readings=len(found))
    for key in dict.fromkeys([*first.ports, *last.ports]):
        _judge_port(judged, first, last, key, table)
    if not last.lists_all:
        for counter, limit in table.items():
            bound = last.bound(counter)
            if bound is None or bound > limit:
                judged.unknown.setdefault(counter, _unknown_why(last, counter, bound))
    return judged


def _basis(judged: Judged, found: Sequence[Reading]) -> str:
    if judged.readings == 1:
        return (
            " One reading: the counters are judged as read (counts since they were last "
            "reset), not as a difference over the burn-in."
        )
    when = [c for r in (found[0], found[-1]) if (c := _collected(r.item))]
    span = f" (collected {when[0]} and {when[1]})" if len(when) == 2 else ""
    text = (
        f" Judged on the difference between the first and last of {judged.readings} readings{span}."
    )
    if judged.resets:
        more = f" and {len(judged.resets) - 3} more" if len(judged.resets) > 3 else ""
        text += (
            f" {'; '.join(judged.resets[:3])}{more}: the counters were reset between the "
            "readings, so the later reading is judged as read."
        )
    if judged.unpaired:
        more = f" and {len(judged.unpaired) - 3} more" if len(judged.unpaired) > 3 else ""
        text += (
            f" {', '.join(judged.unpaired[:3])}{more}: not in the first reading, so judged as read."
        )
    return text


def _errors(found: Iterable[Reading]) -> list[str]:
    return [e for r in found if r.item.parsed for e in getattr(r.item.parsed, "errors", ())]


def _status(judged: Judged, errors: list[str], kind: str) -> Status:
    if judged.over or (errors and kind == "perfquery"):
        return "fail"
    return "inconclusive" if judged.unknown or errors else "pass"


def _message(
    judged: Judged, errors: list[str], kind: str, where: str, ports: int
) -> tuple[str, str]:
    if judged.over:
        detail = "; ".join(
            f"{p.label} {name} {v} (limit {lim})" for p, name, v, lim in judged.over[:6]
        )
        more = f" and {len(judged.over) - 6} more" if len(judged.over) > 6 else ""
        return (
            f"IB error counters over the agreed limits on {where}: {detail}{more}.",
            f"{len(judged.over)} counter(s) over the limit on "
            f"{len({id(p) for p, *_ in judged.over})} port(s)",
        )
    if errors:
        return f"{kind} on {where} reported an error: {errors[0][:120]}", errors[0][:80]
    if judged.unknown:
        why = "; ".join(f"{c}: {w}" for c, w in judged.unknown.items())
        return (
            f"{kind} on {where} does not show {', '.join(judged.unknown)}, so it cannot be "
            f"judged ({why}).",
            f"{len(judged.unknown)} agreed counter(s) not shown",
        )
    return (
        f"Every agreed IB error counter on the {ports} port(s) of {where} is within its limit.",
        f"{ports} port(s) within the limits",
    )


def _node(item: EvidenceItem, judged: Judged) -> str | None:
    """The item's node; for fabric-wide output, the one host every port over the limit is on."""
    if item.node:
        return item.node
    hosts = {p.host for p, *_ in judged.over}
    return next(iter(hosts)) if len(hosts) == 1 else None


def check_counters(*, spec: Spec, items: Sequence[EvidenceItem], mandatory: bool) -> CheckResult:
    """One result for one node's counter files of one kind (all non-empty, same kind)."""
    table = limits(spec)
    found = readings(items)
    kind, first = items[0].kind, items[0]
    judged = judge(found, table)
    errors = _errors(found)
    where = first.node or ("the fabric" if kind == "ibqueryerrors" else "the allocation")
    ports = len({k for r in found for k in r.ports})
    last = found[-1].item.parsed if found else None
    if isinstance(last, IbqueryerrorsResult) and last.ports_checked is not None:
        ports = last.ports_checked  # the ports it lists are only those over its threshold
    message, measured = _message(judged, errors, kind, where, ports)
    basis = "difference over the burn-in" if judged.readings > 1 else "as read, one reading"
    over_item = judged.over[0][0].item if judged.over else found[-1].item if found else first
    result = make(
        over_item,
        name=NAMES.get(kind, NAME),
        group="ib-counters",
        status=_status(judged, errors, kind),
        measured=f"{measured} ({basis})",
        expected=", ".join(f"{name} <= {lim}" for name, lim in table.items()) or "no limits agreed",
        message=message + _basis(judged, found),
        mandatory=mandatory,
        line=judged.over[0][0].line if judged.over else None,
    )
    return dataclasses.replace(result, node=_node(first, judged))


def check_ib_counters(
    *, spec: Spec, items: Sequence[EvidenceItem], mandatory: bool
) -> list[CheckResult]:
    """One result per kind and node: every reading of a node's ports judged together."""
    groups: dict[tuple[str, str | None], list[EvidenceItem]] = {}
    for item in items:
        if isinstance(item.parsed, PerfqueryResult | IbqueryerrorsResult):
            groups.setdefault((item.kind, item.node), []).append(item)
    return [check_counters(spec=spec, items=g, mandatory=mandatory) for g in groups.values()]
