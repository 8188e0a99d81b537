"""Checks on the workload-level evidence: the fixture's all-reduce output and step times."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from engine.evidence.checks.hardware import make
from engine.evidence.checks.model import CheckResult, EvidenceItem, Status
from engine.evidence.checks.runtime import fixture_runtime_checks
from engine.evidence.checks.spec import Spec
from engine.evidence.checks.step_depth import check_duration, check_tail
from engine.evidence.parsers.base import median
from engine.evidence.parsers.fixture_result import FixtureRecord, FixtureResult
from engine.evidence.parsers.step_times import RankSteps, StepTimesResult

NO_NCCL = "none (CPU)"


def _short(values: list[int], limit: int = 8) -> str:
    shown = ", ".join(str(v) for v in values[:limit])
    return shown + (f" (+{len(values) - limit} more)" if len(values) > limit else "")


@dataclass(frozen=True)
class _Results:
    """Collects fixture-result checks; each named step (and `fixture_runtime_checks`) calls it."""

    mandatory: bool
    out: list[CheckResult] = field(default_factory=list)

    def __call__(
        self,
        name: str,
        status: Status,
        measured: str,
        expected: str,
        message: str,
        item: EvidenceItem,
        line: int | None = None,
    ) -> None:
        self.out.append(
            make(
                item,
                name=f"fixture-result: {name}",
                group="fixture-result",
                status=status,
                measured=measured,
                expected=expected,
                message=message,
                mandatory=self.mandatory,
                line=line,
            )
        )


Records = list[tuple[EvidenceItem, FixtureRecord]]


def check_fixture(spec: Spec, items: list[EvidenceItem], mandatory: bool) -> list[CheckResult]:
    """All fixture-result items together: per-node files each hold a slice of the ranks."""
    records: Records = []
    for item in items:
        if isinstance(item.parsed, FixtureResult):
            records.extend((item, r) for r in item.parsed.records)
    if not records:
        return []
    first_item = records[0][0]
    add = _Results(mandatory=mandatory)
    _ranks_check(spec, records, add, first_item)
    _span_check(spec, records, add, first_item)
    _sum_check(spec, records, add, first_item)
    _shape_check(spec, records, add, first_item)
    _device_check(records, add)
    fixture_runtime_checks(spec, records, add, first_item)
    _nccl_version_check(spec, records, add, first_item)
    return add.out


def _ranks_check(spec: Spec, records: Records, add: _Results, first_item: EvidenceItem) -> None:
    """Every rank of the world size exactly once, each reporting that world size."""
    n = spec.world_size
    seen: dict[int, int] = {}
    for _, r in records:
        seen[r.rank] = seen.get(r.rank, 0) + 1
    missing = [r for r in range(n) if r not in seen]
    dupes = sorted(r for r, c in seen.items() if c > 1)
    extra = sorted(r for r in seen if r < 0 or r >= n)
    bad_world = [(i, r) for i, r in records if r.world_size != n]
    ok = not (missing or dupes or extra or bad_world)
    problems = []
    if missing:
        problems.append(f"missing ranks {_short(missing)}")
    if dupes:
        problems.append(f"duplicate ranks {_short(dupes)}")
    if extra:
        problems.append(f"ranks outside 0..{n - 1}: {_short(extra)}")
    if bad_world:
        problems.append(f"world_size {bad_world[0][1].world_size} reported")
    add(
        "ranks",
        "pass" if ok else "fail",
        f"{len(seen)} distinct ranks from {len(records)} records"
        + (f"; {'; '.join(problems)}" if problems else ""),
        f"ranks 0..{n - 1} exactly once (world size {n})",
        f"Every rank 0..{n - 1} reported exactly once."
        if ok
        else f"The fixture output has {'; '.join(problems)}.",
        bad_world[0][0] if bad_world else first_item,
        bad_world[0][1].line if bad_world else None,
    )


def _sum_check(spec: Spec, records: Records, add: _Results, first_item: EvidenceItem) -> None:
    """The all-reduce of rank-filled tensors equals n(n-1)/2 in every element on every rank."""
    n = spec.world_size
    target = n * (n - 1) / 2
    wrong = [
        (i, r) for i, r in records if not r.passed or not (r.min == r.max == r.expected == target)
    ]
    if not wrong:
        add(
            "sum values",
            "pass",
            f"{target:g} in every element on {len(records)} ranks",
            f"every element == {target:g}",
            f"Every rank's all-reduce result equals n(n-1)/2 = {target:g}.",
            first_item,
        )
        return
    i, r = wrong[0]
    add(
        "sum values",
        "fail",
        f"rank {r.rank}: pass={str(r.passed).lower()} min={r.min:g} max={r.max:g} "
        f"expected={r.expected:g}",
        f"every element == {target:g}",
        f"{len(wrong)} rank(s) did not get {target:g} in every element, starting with rank "
        f"{r.rank} on {r.host}.",
        i,
        r.line,
    )


def _shape_check(spec: Spec, records: Records, add: _Results, first_item: EvidenceItem) -> None:
    counts = sorted({r.count for _, r in records})
    dtypes = sorted({r.dtype for _, r in records})
    uniform = len(counts) == 1 and len(dtypes) == 1
    agreed_ok = (spec.fixture_count is None or counts == [spec.fixture_count]) and (
        spec.fixture_dtype is None or dtypes == [spec.fixture_dtype]
    )
    expected = "the same count and dtype on every rank"
    if spec.fixture_count is not None or spec.fixture_dtype is not None:
        expected += f" ({spec.fixture_count} x {spec.fixture_dtype})"
    add(
        "count and dtype",
        "pass" if uniform and agreed_ok else "fail",
        f"count {', '.join(map(str, counts))}; dtype {', '.join(dtypes)}",
        expected,
        "Every rank reduced the same tensor shape and type."
        if uniform and agreed_ok
        else "Ranks disagree on the tensor count/dtype, or it is not the agreed one.",
        first_item,
    )


def _nccl_version_check(
    spec: Spec, records: Records, add: _Results, first_item: EvidenceItem
) -> None:
    if spec.nccl_version:
        versions = sorted({r.nccl_version or NO_NCCL for _, r in records})
        add(
            "NCCL version",
            "pass" if versions == [spec.nccl_version] else "fail",
            ", ".join(versions),
            spec.nccl_version,
            f"The fixture ran with NCCL {', '.join(versions)}; {spec.nccl_version} agreed.",
            first_item,
        )
        return
    used = ", ".join(sorted({r.nccl_version or NO_NCCL for _, r in records}))
    add(
        "NCCL version",
        "warn",
        used,
        "not agreed",
        f"The fixture agrees no NCCL version; it ran with NCCL {used}. Agree one in the "
        "fixture's runtime to check it.",
        first_item,
    )


def _device_check(records: Records, add: _Results) -> None:
    """A CPU dry run (gloo) proves the fixture script, never the GPUs: at burn-in it fails."""
    cpu = [(i, r) for i, r in records if r.on_cpu]
    if not cpu:
        return
    item, first = cpu[0]
    add(
        "device",
        "fail",
        f"{len(cpu)} of {len(records)} ranks on {first.device}",
        "every rank on a GPU",
        f"{len(cpu)} rank(s) ran on the CPU, starting with rank {first.rank} on {first.host}: a "
        "CPU dry run proves the fixture script, not these GPUs. Attach it on the fixture page "
        "as the reference run, and upload the run on the GPUs here.",
        item,
        first.line,
    )


def _span_check(spec: Spec, records: Records, add: _Results, item: EvidenceItem) -> None:
    """The ranks must run on every node of the allocation, the agreed number on each: sixteen
    ranks on one host prove that host's NVLink, not the fabric between nodes."""
    per_host = Counter(r.host for _, r in records)
    per_node = spec.gpus_per_node * spec.workers_per_gpu
    uneven = {h: c for h, c in per_host.items() if c != per_node}
    ok = len(per_host) == spec.nodes and not uneven
    spread = ", ".join(f"{h} {c}" for h, c in sorted(per_host.items()))
    hosts = "host" if len(per_host) == 1 else "hosts"
    add(
        "nodes",
        "pass" if ok else "fail",
        f"{len(per_host)} {hosts}: {spread}",
        f"{spec.nodes} nodes with {per_node} ranks each",
        f"The ranks ran on all {spec.nodes} nodes, {per_node} on each."
        if ok
        else f"The fixture ran on {len(per_host)} {hosts} ({spread}); the allocation has "
        f"{spec.nodes} nodes with {per_node} ranks each, so it did not cross every node.",
        item,
    )


StepFiles = list[tuple[EvidenceItem, tuple[RankSteps, ...]]]


def check_step_times(spec: Spec, items: list[EvidenceItem], mandatory: bool) -> list[CheckResult]:
    # Every file's ranks together, read in place: five 4,096-rank files would otherwise make
    # 20,000 (file, rank) pairs on every re-check.
    files: StepFiles = [
        (item, item.parsed.per_rank)
        for item in items
        if isinstance(item.parsed, StepTimesResult) and item.parsed.per_rank
    ]
    if not files:
        return []
    medians = sorted(r.median for _, per_rank in files for r in per_rank)
    run_median = median(medians)
    return [
        _stragglers(spec, files, run_median, mandatory),
        check_tail(spec=spec, files=files, run_median=run_median, mandatory=mandatory),
        _spread(spec, files, medians[0], mandatory),
        _rank_coverage(spec, files, mandatory),
        check_duration(spec=spec, files=files, mandatory=mandatory),
    ]


def _stragglers(spec: Spec, files: StepFiles, run_median: float, mandatory: bool) -> CheckResult:
    tol = float(spec.thresholds.get("step_time_tolerance_pct") or 5.0)
    limit = run_median * (1 + tol / 100.0)
    slow = sorted(
        ((i, r) for i, per_rank in files for r in per_rank if r.median > limit),
        key=lambda x: -x[1].median,
    )
    if not slow:
        return make(
            files[0][0],
            name="step-times: stragglers",
            group="step-times",
            status="pass",
            measured=f"slowest rank median within {tol:g}% of {run_median:.4g} s",
            expected=f"every rank median <= run median + {tol:g}%",
            mandatory=mandatory,
            message=f"No rank's median step time exceeds the run median by more than {tol:g}%.",
        )
    i, worst = slow[0]
    names = ", ".join(f"rank {r.rank} ({r.node})" for _, r in slow[:5])
    return make(
        i,
        name="step-times: stragglers",
        group="step-times",
        status="fail",
        measured=f"{len(slow)} rank(s) above {limit:.4g} s, worst rank {worst.rank} on "
        f"{worst.node} at {worst.median:.4g} s",
        expected=f"every rank median <= run median {run_median:.4g} s + {tol:g}%",
        mandatory=mandatory,
        line=worst.line,
        message=f"{len(slow)} straggler rank(s): {names}"
        + (" and more." if len(slow) > 5 else "."),
    )


def _spread(spec: Spec, files: StepFiles, lo: float, mandatory: bool) -> CheckResult:
    """Slowest rank median over the fastest one, linked to the rank that sets the figure."""
    spread_limit = float(spec.thresholds.get("step_time_spread_pct") or 10.0)
    slowest_item, slowest = files[0][0], max(files[0][1], key=lambda r: r.median)
    for item, per_rank in files[1:]:
        top = max(per_rank, key=lambda r: r.median)
        if top.median > slowest.median:  # the first file's rank wins a tie
            slowest_item, slowest = item, top
    hi = slowest.median
    spread = (hi / lo - 1) * 100.0 if lo > 0 else float("inf")
    refs = list(dict.fromkeys(i.ref for i, _ in files))
    combined = f" (combined over {len(refs)} files: {', '.join(refs)})" if len(refs) > 1 else ""
    return make(
        slowest_item,
        name="step-times: spread",
        group="step-times",
        status="pass" if spread <= spread_limit else "fail",
        measured=f"{spread:.2f}% (rank medians {lo:.4g} s to {hi:.4g} s)",
        expected=f"<= {spread_limit:g}%",
        mandatory=mandatory,
        line=slowest.line,
        message=f"Rank medians spread by {spread:.2f}%{combined}; slowest rank "
        f"{slowest.rank} ({slowest.node}); {spread_limit:g}% allowed.",
    )


def _rank_coverage(spec: Spec, files: StepFiles, mandatory: bool) -> CheckResult:
    n = spec.world_size
    present = {r.rank for _, per_rank in files for r in per_rank}
    missing = [r for r in range(n) if r not in present]
    return make(
        files[0][0],
        name="step-times: ranks",
        group="step-times",
        status="fail" if missing else "pass",
        measured=f"{len(present)} ranks" + (f"; missing {_short(missing)}" if missing else ""),
        expected=f"ranks 0..{n - 1}",
        mandatory=mandatory,
        message=f"Step times are missing for {len(missing)} rank(s)."
        if missing
        else f"Step times cover all {n} ranks.",
    )
