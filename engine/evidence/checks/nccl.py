"""nccl-tests checks on whole-allocation runs, and the node-subset bisection."""

from __future__ import annotations

from engine.evidence.checks.hardware import make
from engine.evidence.checks.model import CheckResult, EvidenceItem, Status
from engine.evidence.checks.spec import Spec
from engine.evidence.large_message import lowest_large_busbw, row_busbw
from engine.evidence.parsers.nccl_model import NcclRow, NcclTestsResult
from engine.formatting import bandwidth, data_size

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


def check_run(
    spec: Spec, item: EvidenceItem, run: NcclTestsResult, mandatory: bool
) -> list[CheckResult]:
    coll = run.collective or "unknown collective"
    label = f"nccl-tests {coll}"
    where = item.node or "the allocation"
    out: list[CheckResult] = []

    def add(
        name: str,
        status: Status,
        measured: str,
        expected: str,
        message: str,
        line: int | None = None,
    ) -> None:
        out.append(
            make(
                item,
                name=f"{label}: {name}",
                group="nccl-tests",
                status=status,
                measured=measured,
                expected=expected,
                message=message,
                mandatory=mandatory,
                line=line,
            )
        )

    if run.errors:
        add(
            "completed",
            "fail",
            run.errors[0][:100],
            "a run that completes",
            f"The {coll} run on {where} aborted: {run.errors[0][:160]}",
            run.error_line,
        )
    elif run.truncated or not run.complete:
        add(
            "completed",
            "inconclusive",
            "no trailer (output cut short)",
            "a complete run with the Out of bounds / Avg bus bandwidth trailer",
            f"The {coll} output from {where} stops before its trailer, so it may be partial.",
            run.rows[-1].line if run.rows else None,
        )
    world = spec.world_size  # only whole-allocation runs come here
    if world:
        status: Status = (
            "inconclusive" if run.ranks is None else ("pass" if run.ranks == world else "fail")
        )
        add(
            "rank count",
            status,
            "no device list" if run.ranks is None else f"{run.ranks} ranks",
            f"{world} ranks",
            f"The {coll} output lists no devices, so its rank count is unknown."
            if run.ranks is None
            else f"The {coll} run used {run.ranks} ranks; {world} agreed.",
        )
    wrong_vals: list[tuple[int, NcclRow]] = []
    checked = 0
    for row in run.rows:
        for side in (row.out_of_place, row.in_place):
            if side is None:
                continue
            if run.error_column == "max_delta" and side.max_delta is not None:
                checked += 1
                if side.max_delta > MAX_DELTA_TOLERANCE:
                    wrong_vals.append((1, row))
            elif side.wrong is not None:
                checked += 1
                if side.wrong > 0:
                    wrong_vals.append((side.wrong, row))
    if run.rows:
        if wrong_vals:
            add(
                "#wrong",
                "fail",
                f"{sum(w for w, _ in wrong_vals)} wrong at {data_size(wrong_vals[0][1].size)}",
                "#wrong 0 at every size",
                f"The {coll} run reported wrong results at {len(wrong_vals)} size(s).",
                wrong_vals[0][1].line,
            )
        elif not checked:
            add(
                "#wrong",
                "fail" if spec.nccl_check else "warn",
                "N/A (validation off)",
                "#wrong 0 at every size (run with -c 1)",
                f"The {coll} run did not validate its results (#wrong is N/A).",
                run.rows[0].line,
            )
        else:
            add(
                "#wrong",
                "pass",
                "0 at every size",
                "#wrong 0 at every size",
                f"The {coll} run reported no wrong results.",
            )
    if run.out_of_bounds is not None:
        add(
            "out of bounds",
            "pass" if run.out_of_bounds == 0 else "fail",
            f"{run.out_of_bounds} values",
            "0 values",
            f"The {coll} run reported {run.out_of_bounds} out-of-bounds value(s).",
        )
    threshold = spec.busbw_threshold(run.collective)
    if threshold is not None:
        busbw, slow_row = slowest_large_busbw(run, spec)
        limit = data_size(spec.large_message_bytes)
        if busbw is None or slow_row is None:
            add(
                "large-message busbw",
                "fail",
                f"no rows at >= {limit}",
                f">= {bandwidth(threshold)} at >= {limit}",
                f"The {coll} run has no result at message sizes of {limit} or more.",
            )
        else:
            add(
                "large-message busbw",
                "pass" if busbw >= threshold else "fail",
                f"{bandwidth(busbw)} at {data_size(slow_row.size)} (lowest of "
                f"{sum(r.size >= spec.large_message_bytes for r in run.rows)} sizes >= {limit})",
                f">= {bandwidth(threshold)}",
                (
                    f"The {coll} bus bandwidth drops to {bandwidth(busbw)} at "
                    f"{data_size(slow_row.size)}, below the agreed {bandwidth(threshold)}."
                    if busbw < threshold
                    else f"The {coll} bus bandwidth stays at or above {bandwidth(threshold)} "
                    "for large messages."
                ),
                slow_row.line,
            )
    if spec.min_bytes is not None or spec.max_bytes is not None:
        sizes = [r.size for r in run.rows]
        lo, hi = (min(sizes), max(sizes)) if sizes else (None, None)
        ok = (
            bool(sizes)
            and (spec.min_bytes is None or (lo is not None and lo <= spec.min_bytes))
            and (spec.max_bytes is None or (hi is not None and hi >= spec.max_bytes))
        )
        add(
            "size range",
            "pass" if ok else "fail",
            f"{data_size(lo)} to {data_size(hi)}" if sizes else "no rows",
            f"{data_size(spec.min_bytes)} to {data_size(spec.max_bytes)}",
            f"The {coll} sweep covers {data_size(lo)} to {data_size(hi)}; "
            f"{data_size(spec.min_bytes)} to {data_size(spec.max_bytes)} agreed.",
        )
    if spec.nccl_version:
        if run.nccl_version is None:
            add(
                "NCCL version",
                "warn",
                "not printed",
                spec.nccl_version,
                f"The {coll} output does not print the NCCL version.",
            )
        else:
            add(
                "NCCL version",
                "pass" if run.nccl_version == spec.nccl_version else "fail",
                run.nccl_version,
                spec.nccl_version,
                f"The {coll} run used NCCL {run.nccl_version}; {spec.nccl_version} agreed.",
            )
    else:
        used = run.nccl_version or "not printed"
        add(
            "NCCL version",
            "warn",
            used,
            "not agreed",
            f"The fixture agrees no NCCL version; the {coll} run used {used}. Agree one in the "
            "fixture's runtime to check it.",
        )
    return out


def check_subsets(spec: Spec, items: list[EvidenceItem], *, mandatory: bool) -> list[CheckResult]:
    """Name the node common to every slow subset run (pairs or small groups of nodes)."""
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
    common = set(slow_sets[0]).intersection(*slow_sets[1:])
    suspects = sorted(common - fast_nodes) or sorted(common)
    if len(suspects) == 1:
        message = f"{suspects[0]} is the node common to all {len(slow_sets)} slow subset run(s)."
    elif suspects:
        message = (
            f"The slow subset runs share nodes {', '.join(suspects)}; run more subsets "
            "to separate them."
        )
    else:
        message = (
            f"The {len(slow_sets)} slow subset runs share no node: the problem looks "
            "fabric-wide rather than one node."
        )
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
