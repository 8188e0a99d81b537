"""IB port error counters (perfquery) against the agreed limits: a link that flaps or corrupts
symbols under load shows up here long before NCCL times out on it.

Only the counters the fixture limits are judged; a counter a port does not report is said to be
unknown rather than passed.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.evidence.checks.hardware import make
from engine.evidence.checks.model import CheckResult, EvidenceItem, Status
from engine.evidence.checks.spec import DEFAULT_THRESHOLDS, Spec
from engine.evidence.parsers.perfquery import PerfqueryResult, PortCounters

NAME = "perfquery: error counters"


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


def _over(port: PortCounters, table: Mapping[str, int]) -> list[tuple[str, int, int]]:
    return [
        (name, port.counters[name], limit)
        for name, limit in table.items()
        if name in port.counters and port.counters[name] > limit
    ]


def check_perfquery(*, spec: Spec, item: EvidenceItem, mandatory: bool) -> list[CheckResult]:
    """One result per file: fail naming the node, the port and each counter over its limit."""
    result = item.parsed
    assert isinstance(result, PerfqueryResult)
    where = item.node or "the allocation"
    table = limits(spec)
    over = [(port, name, v, lim) for port in result.ports for name, v, lim in _over(port, table)]
    unread = sorted({n for p in result.ports for n in table if n not in p.counters})
    status: Status = "fail" if over or result.errors else "inconclusive" if unread else "pass"
    expected = ", ".join(f"{name} <= {lim}" for name, lim in table.items()) or "no limits agreed"
    if over:
        detail = "; ".join(f"{p.label} {name} {v} (limit {lim})" for p, name, v, lim in over[:6])
        more = f" and {len(over) - 6} more" if len(over) > 6 else ""
        message = f"IB error counters over the agreed limits on {where}: {detail}{more}."
        measured = (
            f"{len(over)} counter(s) over the limit on {len({id(p) for p, *_ in over})} port(s)"
        )
    elif result.errors:
        message = f"perfquery on {where} reported an error: {result.errors[0][:120]}"
        measured = result.errors[0][:80]
    elif unread:
        message = f"perfquery on {where} does not show {', '.join(unread)}, so it cannot be judged."
        measured = f"{len(unread)} agreed counter(s) not shown"
    else:
        message = f"Every agreed IB error counter on the {len(result.ports)} port(s) of {where} "
        message += "is within its limit."
        measured = f"{len(result.ports)} port(s) within the limits"
    return [
        make(
            item,
            name=NAME,
            group="ib-counters",
            status=status,
            measured=measured,
            expected=expected,
            message=message,
            mandatory=mandatory,
            line=over[0][0].line if over else None,
        )
    ]
