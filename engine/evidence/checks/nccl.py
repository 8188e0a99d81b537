"""nccl-tests checks on whole-allocation runs, and the node-subset bisection."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.evidence.checks.hardware import make
from engine.evidence.checks.model import CheckResult, EvidenceItem, Status
from engine.evidence.checks.spec import Spec
from engine.evidence.large_message import lowest_large_busbw, row_busbw
from engine.evidence.parsers.nccl_model import NcclRow, NcclTestsResult, collective_from_program
from engine.formatting import bandwidth, data_size

TOOL = "nccl-tests"
# AMD's fork: a run of it is named as such in messages; check names keep TOOL, one per check.
RCCL_TOOL = "rccl-tests"
# Pre-2.13 nccl-tests printed maxDelta instead of a count of wrong elements.
MAX_DELTA_TOLERANCE = 1e-3


def runs_of(item: EvidenceItem) -> list[NcclTestsResult]:
    parsed = item.parsed
    if not isinstance(parsed, NcclTestsResult):
        return []
    return [parsed, *parsed.runs]


def _busbw(row: NcclRow) -> float | None:
    return row_busbw(
        row.out_of_place.busbw if row.out_of_place else None,
        row.in_place.busbw if row.in_place else None,
    )


def slowest_large_busbw(run: NcclTestsResult, spec: Spec) -> tuple[float | None, NcclRow | None]:
    """The gate's figure (never Avg bus bandwidth) and the row it came from."""
    found = lowest_large_busbw(
        ((row.size, _busbw(row)) for row in run.rows), large_bytes=spec.large_message_bytes
    )
    return (None, None) if found is None else (found.busbw, run.rows[found.index])


@dataclass(frozen=True)
class RunContext:
    """One whole-allocation nccl-tests run and what every check of it needs."""

    spec: Spec
    item: EvidenceItem
    run: NcclTestsResult
    mandatory: bool

    @property
    def coll(self) -> str:
        """The collective for names and sentences: from the output, else from the file's name
        (an aborted run often stops before naming it), else the tool's own name."""
        return self.run.collective or collective_from_program(self.item.name or "") or self.tool

    @property
    def tool(self) -> str:
        return RCCL_TOOL if self.run.library == "RCCL" else TOOL

    @property
    def library(self) -> str:
        """ "NCCL", or "RCCL" for a run of AMD's library, as the messages name it."""
        return self.run.library

    @property
    def where(self) -> str:
        return self.item.node or "the allocation"

    def result(
        self,
        name: str,
        status: Status,
        measured: str,
        expected: str,
        message: str,
        line: int | None = None,
    ) -> CheckResult:
        return make(
            self.item,
            name=f"{TOOL}: {name}" if self.coll == self.tool else f"{TOOL} {self.coll}: {name}",
            group="nccl-tests",
            status=status,
            measured=measured,
            expected=expected,
            message=message,
            mandatory=self.mandatory,
            line=line,
        )


def _completed(ctx: RunContext) -> CheckResult | None:
    run, coll = ctx.run, ctx.coll
    if run.errors:
        return ctx.result(
            "completed",
            "fail",
            run.errors[0][:100],
            "a run that completes",
            f"The {coll} run on {ctx.where} aborted: {run.errors[0][:160]}",
            run.error_line,
        )
    if run.truncated or not run.complete:
        return ctx.result(
            "completed",
            "inconclusive",
            "no trailer (output cut short)",
            "a complete run with the Out of bounds / Avg bus bandwidth trailer",
            f"The {coll} output from {ctx.where} stops before its trailer, so it may be partial.",
            run.rows[-1].line if run.rows else None,
        )
    return None


def _rank_count(ctx: RunContext) -> CheckResult | None:
    world, ranks = ctx.spec.world_size, ctx.run.ranks  # only whole-allocation runs come here
    if not world:
        return None
    status: Status = "inconclusive" if ranks is None else ("pass" if ranks == world else "fail")
    return ctx.result(
        "rank count",
        status,
        "no device list" if ranks is None else f"{ranks} ranks",
        f"{world} ranks",
        f"The {ctx.coll} output lists no devices, so its rank count is unknown."
        if ranks is None
        else f"The {ctx.coll} run used {ranks} ranks; {world} agreed.",
    )


def _wrong_counts(run: NcclTestsResult) -> tuple[list[tuple[int, NcclRow]], int]:
    """(wrong count and row for every side that reported wrong results, sides validated)."""
    wrong: list[tuple[int, NcclRow]] = []
    checked = 0
    for row in run.rows:
        for side in (row.out_of_place, row.in_place):
            if side is None:
                continue
            if run.error_column == "max_delta" and side.max_delta is not None:
                checked += 1
                if side.max_delta > MAX_DELTA_TOLERANCE:
                    wrong.append((1, row))
            elif side.wrong is not None:
                checked += 1
                if side.wrong > 0:
                    wrong.append((side.wrong, row))
    return wrong, checked


def _wrong(ctx: RunContext) -> CheckResult | None:
    run, coll = ctx.run, ctx.coll
    if not run.rows:
        return None
    wrong, checked = _wrong_counts(run)
    if wrong:
        return ctx.result(
            "#wrong",
            "fail",
            f"{sum(w for w, _ in wrong)} wrong at {data_size(wrong[0][1].size)}",
            "#wrong 0 at every size",
            f"The {coll} run reported wrong results at {len(wrong)} size(s).",
            wrong[0][1].line,
        )
    if not checked:
        return ctx.result(
            "#wrong",
            "fail" if ctx.spec.nccl_check else "warn",
            "N/A (validation off)",
            "#wrong 0 at every size (run with -c 1)",
            f"The {coll} run did not validate its results (#wrong is N/A).",
            run.rows[0].line,
        )
    return ctx.result(
        "#wrong",
        "pass",
        "0 at every size",
        "#wrong 0 at every size",
        f"The {coll} run reported no wrong results.",
    )


def _out_of_bounds(ctx: RunContext) -> CheckResult | None:
    return _none_allowed(
        ctx, "out of bounds", ctx.run.out_of_bounds, "values", "out-of-bounds value(s)"
    )


def _bitwise(ctx: RunContext) -> CheckResult | None:
    """Repeats of one collective that differ bit for bit (-B): results not reproducible."""
    return _none_allowed(
        ctx,
        "bitwise repeatability",
        ctx.run.bitwise_mismatches,
        "mismatches",
        "bitwise mismatch(es) between repeats",
    )


def _none_allowed(
    ctx: RunContext, name: str, count: int | None, unit: str, what: str
) -> CheckResult | None:
    """A count the run reports that must be zero; no check where the run did not report it."""
    if count is None:
        return None
    return ctx.result(
        name,
        "pass" if count == 0 else "fail",
        f"{count} {unit}",
        f"0 {unit}",
        f"The {ctx.coll} run reported {count} {what}.",
    )


def _large_busbw(ctx: RunContext) -> CheckResult | None:
    spec, run, coll = ctx.spec, ctx.run, ctx.coll
    threshold = spec.busbw_threshold(run.collective)
    if threshold is None:
        return None
    busbw, slow_row = slowest_large_busbw(run, spec)
    limit = data_size(spec.large_message_bytes)
    if busbw is None or slow_row is None:
        return ctx.result(
            "large-message busbw",
            "fail",
            f"no rows at >= {limit}",
            f">= {bandwidth(threshold)} at >= {limit}",
            f"The {coll} run has no result at message sizes of {limit} or more.",
        )
    large = sum(r.size >= spec.large_message_bytes for r in run.rows)
    at = data_size(slow_row.size)
    return ctx.result(
        "large-message busbw",
        "pass" if busbw >= threshold else "fail",
        f"{bandwidth(busbw)} at {at} (lowest of {large} sizes >= {limit})",
        f">= {bandwidth(threshold)}",
        (
            f"The {coll} bus bandwidth drops to {bandwidth(busbw)} at {at}, below the agreed "
            f"{bandwidth(threshold)}."
            if busbw < threshold
            else f"The {coll} bus bandwidth stays at or above {bandwidth(threshold)} "
            "for large messages."
        ),
        slow_row.line,
    )


def _size_range(ctx: RunContext) -> CheckResult | None:
    spec = ctx.spec
    if spec.min_bytes is None and spec.max_bytes is None:
        return None
    sizes = [r.size for r in ctx.run.rows]
    lo, hi = (min(sizes), max(sizes)) if sizes else (None, None)
    ok = (
        bool(sizes)
        and (spec.min_bytes is None or (lo is not None and lo <= spec.min_bytes))
        and (spec.max_bytes is None or (hi is not None and hi >= spec.max_bytes))
    )
    if spec.min_bytes is None:
        agreed = f"up to {data_size(spec.max_bytes)}"
    elif spec.max_bytes is None:
        agreed = f"from {data_size(spec.min_bytes)}"
    else:
        agreed = f"{data_size(spec.min_bytes)} to {data_size(spec.max_bytes)}"
    covered = f"{data_size(lo)} to {data_size(hi)}"
    return ctx.result(
        "size range",
        "pass" if ok else "fail",
        covered if sizes else "no rows",
        agreed,
        f"The {ctx.coll} sweep covers {covered}; {agreed} agreed."
        if sizes
        else f"The {ctx.coll} output from {ctx.where} has no result rows; {agreed} agreed.",
    )


def _nccl_version(ctx: RunContext) -> CheckResult | None:
    agreed, used, coll, lib = ctx.spec.nccl_version, ctx.run.nccl_version, ctx.coll, ctx.library
    if not agreed:
        ran = (
            f"the {coll} run used {lib} {used}" if used else f"the {coll} output does not print one"
        )
        return ctx.result(
            "NCCL version",
            "warn",
            used or "not printed",
            "not agreed",
            f"The fixture agrees no NCCL version; {ran}. Agree one in the fixture's runtime to "
            "check it.",
        )
    if used is None:
        return ctx.result(
            "NCCL version",
            "warn",
            "not printed",
            agreed,
            f"The {coll} output does not print the {lib} version.",
        )
    return ctx.result(
        "NCCL version",
        "pass" if used == agreed else "fail",
        used,
        agreed,
        f"The {coll} run used {lib} {used}; {agreed} agreed.",
    )


# Each check of one run, in the order the results are shown; None: the check does not apply.
RUN_CHECKS: tuple[Callable[[RunContext], CheckResult | None], ...] = (
    _completed,
    _rank_count,
    _wrong,
    _out_of_bounds,
    _bitwise,
    _large_busbw,
    _size_range,
    _nccl_version,
)


def check_run(
    spec: Spec, item: EvidenceItem, run: NcclTestsResult, mandatory: bool
) -> list[CheckResult]:
    ctx = RunContext(spec=spec, item=item, run=run, mandatory=mandatory)
    return [result for check in RUN_CHECKS if (result := check(ctx)) is not None]


def _subset_runs(
    spec: Spec, items: list[EvidenceItem]
) -> list[tuple[EvidenceItem, frozenset[str], bool]]:
    """(item, its nodes, slow) for every subset run that can be judged; an aborted run is slow."""
    subsets: list[tuple[EvidenceItem, frozenset[str], bool]] = []
    for item in items:
        if not item.nodes:
            continue
        for run in runs_of(item):
            threshold = spec.busbw_threshold(run.collective)
            busbw, _ = slowest_large_busbw(run, spec)
            if run.errors:
                slow = True
            elif threshold is None or busbw is None:
                continue
            else:
                slow = busbw < threshold
            subsets.append((item, frozenset(item.nodes), slow))
    return subsets


def _suspects(slow_sets: list[frozenset[str]], fast_nodes: set[str]) -> tuple[list[str], str]:
    """The nodes every slow subset shares (those in no fast subset first), and what that says."""
    common = set(slow_sets[0]).intersection(*slow_sets[1:])
    suspects = sorted(common - fast_nodes) or sorted(common)
    if len(suspects) == 1:
        return (
            suspects,
            f"{suspects[0]} is the node common to all {len(slow_sets)} slow subset run(s).",
        )
    if suspects:
        return suspects, (
            f"The slow subset runs share nodes {', '.join(suspects)}; run more subsets "
            "to separate them."
        )
    return suspects, (
        f"The {len(slow_sets)} slow subset runs share no node: the problem looks "
        "fabric-wide rather than one node."
    )


def check_subsets(spec: Spec, items: list[EvidenceItem], *, mandatory: bool) -> list[CheckResult]:
    """Name the node common to every slow subset run (pairs or small groups of nodes)."""
    subsets = _subset_runs(spec, items)
    if not subsets:
        return []
    slow_sets = [nodes for _, nodes, slow in subsets if slow]
    fast_nodes = set().union(*(nodes for _, nodes, slow in subsets if not slow))
    ref_item = next((i for i, _, slow in subsets if slow), subsets[0][0])
    name, group = "node subsets: slow node", "node-subsets"
    if not slow_sets:
        return [
            make(
                ref_item,
                name=name,
                group=group,
                status="pass",
                measured=f"{len(subsets)} subset runs at or above threshold",
                expected="no slow subset",
                mandatory=mandatory,
                message=f"All {len(subsets)} node-subset runs reach the agreed bus bandwidth.",
            )
        ]
    suspects, message = _suspects(slow_sets, fast_nodes)
    return [
        make(
            ref_item,
            name=name,
            group=group,
            status="fail",
            measured=", ".join(suspects) or "no common node",
            expected="no slow subset",
            mandatory=mandatory,
            message=message,
        )
    ]
