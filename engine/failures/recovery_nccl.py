"""Recovery criterion 2, NCCL on the full node set: the recovery nccl-tests run against the
reservation's shape and the hand-over baseline's run.

Compared, each refusal naming the difference: the rank count (the reservation's nodes × GPUs per
node), the node set (the hosts of the burn-in's run; where the baseline names none, every host
must be one of the reservation's nodes), the collective, the command shape (the
arguments nccl-tests echoes in its header), the NCCL version, each node's CUDA version
(recovery_versions.py), and the large-message bus bandwidth
within the agreed margin. A piece the baseline does not hold (baselines frozen before it was
kept) is said to be not comparable, never passed in silence. A file byte-identical to burn-in
evidence is refused outright: a recovery run must be new.

Plain data in and out: parsed runs are `engine.evidence.parsers.to_json` documents, the baseline is
`Baseline.snapshot`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.evidence.large_message import large_message_bytes, stored_lowest_large_busbw
from engine.evidence.parsers.header import host_matches
from engine.formatting import data_size_exact

from .recovery_versions import cuda_problems

PASS, FAIL, WAITING = "pass", "fail", "waiting"
# Refused on a reuse or mismatch finding (a file given twice, another host, the burn-in's own
# bytes) rather than on a measurement: it blocks like a failure, and the item's owner may
# explain it away with a signed reason, which the audit trail keeps.
FINDING = "finding"

# nccl-tests' header values and the flags that set them (`all_reduce_perf -b 8 -e 8G -f 2 ...`).
# Mirrors the baseline's `command` (engine.evidence.burnin_report), so the two compare as text.
_FLAGS = (
    ("-b", "min_bytes"),
    ("-e", "max_bytes"),
    ("-f", "step_factor"),
    ("-n", "iters"),
    ("-w", "warmup_iters"),
    ("-c", "validation"),
    ("-d", "datatype"),
)


@dataclass(frozen=True, slots=True)
class NcclShape:
    """What the recovery run must match beyond bandwidth. None: not known, said so."""

    ranks: int | None = None  # nodes × GPUs per node of the reservation
    nodes: int | None = None
    gpus_per_node: int | None = None
    hosts: tuple[str, ...] | None = None  # the burn-in run's node set
    # The reservation's node names, however its burn-in knew them: where the baseline names no
    # hosts, a recovery run's hosts are still checked against these.
    reservation_nodes: tuple[str, ...] | None = None
    reused: str | None = None  # "this is the burn-in's …" when the bytes are burn-in evidence


def command_shape(run: Mapping[str, Any]) -> str:
    parts = [f"{run.get('collective') or 'unknown'}_perf"]
    parts += [f"{flag} {run[key]}" for flag, key in _FLAGS if run.get(key) is not None]
    return " ".join(parts)


def _flags(command: str) -> dict[str, str]:
    tokens = command.split()
    return {tokens[i]: tokens[i + 1] for i in range(1, len(tokens) - 1, 2)}


def _command_difference(ref: str, got: str) -> str | None:
    if ref == got:
        return None
    a, b = _flags(ref), _flags(got)
    diffs = [
        f"{flag} {b.get(flag, 'absent')} (baseline {a.get(flag, 'absent')})"
        for flag, _ in _FLAGS
        if a.get(flag) != b.get(flag)
    ]
    return "command differs: " + ", ".join(diffs or [f"{got} (baseline {ref})"])


def _runs(parsed: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [run for doc in parsed for run in [doc, *(doc.get("runs") or [])]]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _shape_problems(run: Mapping[str, Any], shape: NcclShape) -> tuple[list[str], list[str]]:
    """(problems, not comparable) for the run's ranks and hosts."""
    problems: list[str] = []
    unknown: list[str] = []
    ranks = run.get("ranks")
    hosts = [str(h) for h in run.get("nodes") or []]
    if shape.ranks:
        if not isinstance(ranks, int):
            problems.append(
                "the run does not list its ranks (no '# Rank … on <host>' lines); "
                f"the reservation has {shape.ranks} ranks"
            )
        elif ranks != shape.ranks:
            where = f" on {_plural(len(hosts), 'node')}" if hosts else ""
            layout = (
                f" ({shape.nodes} nodes × {shape.gpus_per_node} GPUs)"
                if shape.nodes and shape.gpus_per_node
                else ""
            )
            problems.append(
                f"{_plural(ranks, 'rank')}{where} ran; the reservation has "
                f"{shape.ranks} ranks{layout}"
            )
    else:
        unknown.append("rank count (the reservation's node shape is not known)")
    if shape.hosts:
        missing = [h for h in shape.hosts if h not in hosts]
        extra = [h for h in hosts if h not in shape.hosts]
        if missing or extra:
            parts = [f"missing {', '.join(missing)}"] if missing else []
            parts += [f"not in the burn-in: {', '.join(extra)}"] if extra else []
            problems.append(f"node set differs from the burn-in's ({'; '.join(parts)})")
    elif shape.reservation_nodes and hosts:
        foreign = [h for h in hosts if not any(host_matches(h, n) for n in shape.reservation_nodes)]
        if foreign:
            problems.append(
                f"{_plural(len(foreign), 'host')} outside the reservation: {', '.join(foreign)} "
                f"(its nodes: {', '.join(shape.reservation_nodes)})"
            )
    else:
        unknown.append("node set (the baseline does not name the burn-in's hosts)")
    return problems, unknown


def _baseline_version(
    row: Mapping[str, Any], baseline: Mapping[str, Any]
) -> tuple[str | None, str]:
    if row.get("nccl_version"):
        return str(row["nccl_version"]), "the baseline run used"
    versions = (baseline.get("versions") or {}).get("nccl") or []
    if len(versions) == 1:
        contracted = baseline.get("source") == "contracted"
        return str(versions[0]), "the contract names" if contracted else "the baseline run used"
    return None, ""


@dataclass(slots=True)
class _Comparison:
    """What comparing the recovery runs with the baseline found, in the order it is shown."""

    parts: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


def _has_figure(row: Mapping[str, Any]) -> bool:
    # A measured 0 GB/s (a dead link at hand-over) is still the baseline's figure.
    return isinstance(row.get("large_message_busbw_min_gbps"), int | float)


def check_nccl(
    parsed: Sequence[Mapping[str, Any]],
    baseline: Mapping[str, Any] | None,
    margin_pct: float,
    shape: NcclShape | None = None,
) -> tuple[str, str, str]:
    """(status, measured, expected) for "nccl-tests within X % of the hand-over baseline".

    When the baseline is the contracted thresholds, recovery must reach the contracted floor
    itself: a margin below a contract's minimum would accept less than was agreed."""
    shape = shape or NcclShape()
    baseline = baseline or {}
    rows = [r for r in baseline.get("nccl") or [] if _has_figure(r)]
    if not rows:
        return WAITING, "", "the hand-over baseline has no nccl-tests result: sign off instead"
    contracted = baseline.get("source") == "contracted"
    margin_pct = 0.0 if contracted else margin_pct
    expected = _expected(rows, margin_pct, contracted=contracted, shape=shape)
    if not parsed:
        return WAITING, "no recovery nccl-tests run uploaded", expected
    if shape.reused:
        return FINDING, shape.reused, expected
    found = _compare(rows, parsed, baseline, margin_pct=margin_pct, shape=shape)
    measured = "; ".join(found.parts + found.problems)
    if found.unknown:
        measured += "; cannot be compared: " + ", ".join(found.unknown)
    return (FAIL if found.problems else PASS), measured, expected


def _compare(
    rows: Sequence[Mapping[str, Any]],
    parsed: Sequence[Mapping[str, Any]],
    baseline: Mapping[str, Any],
    *,
    margin_pct: float,
    shape: NcclShape,
) -> _Comparison:
    """Each baseline collective against the recovery run of the same collective."""
    found = _Comparison()
    runs = [r for r in _runs(parsed) if r.get("rows")]
    shaped = False
    for row in rows:
        coll = str(row.get("collective") or "unknown")
        run = next((r for r in runs if str(r.get("collective") or "unknown") == coll), None)
        if run is None:
            seen = sorted({str(r.get("collective") or "unknown") for r in runs})
            found.problems.append(f"{coll}: no run (uploaded: {', '.join(seen) or 'no data rows'})")
            continue
        if not shaped:  # the node shape is the run's, whichever collective shows it
            shape_problems, shape_unknown = _shape_problems(run, shape)
            found.problems.extend(shape_problems)
            found.unknown.extend(shape_unknown)
            shaped = True
        _compare_command(found, coll, row, run, contracted=baseline.get("source") == "contracted")
        _compare_version(found, coll, row, run, baseline)
        _compare_busbw(
            found, coll, row, run, large=large_message_bytes(baseline), margin_pct=margin_pct
        )
    problems, unknown = cuda_problems(parsed=parsed, baseline=baseline)
    found.problems.extend(problems)
    found.unknown.extend(unknown)
    return found


def _compare_command(
    found: _Comparison,
    coll: str,
    row: Mapping[str, Any],
    run: Mapping[str, Any],
    *,
    contracted: bool,
) -> None:
    if row.get("command"):
        if diff := _command_difference(str(row["command"]), command_shape(run)):
            found.problems.append(f"{coll}: {diff}")
    elif not contracted:
        found.unknown.append(f"{coll} command (the baseline does not keep it)")


def _compare_version(
    found: _Comparison,
    coll: str,
    row: Mapping[str, Any],
    run: Mapping[str, Any],
    baseline: Mapping[str, Any],
) -> None:
    ref_version, whose = _baseline_version(row, baseline)
    got_version = run.get("nccl_version")
    lib = run.get("library") or "NCCL"  # "RCCL" for a run of AMD's rccl-tests
    if ref_version is None:
        found.unknown.append(f"{coll} {lib} version (the baseline does not keep it)")
    elif not got_version:
        found.problems.append(
            f"{coll}: the run does not print its {lib} version ({whose} {ref_version})"
        )
    elif str(got_version) != ref_version:
        found.problems.append(f"{coll}: {lib} {got_version}; {whose} {ref_version}")


def _compare_busbw(
    found: _Comparison,
    coll: str,
    row: Mapping[str, Any],
    run: Mapping[str, Any],
    *,
    large: int,
    margin_pct: float,
) -> None:
    ref = float(row["large_message_busbw_min_gbps"])
    got = stored_lowest_large_busbw(run, large_bytes=large)
    if got is None:
        found.problems.append(f"{coll}: no message of {data_size_exact(large)} or more")
        return
    # A 0 GB/s baseline has no percentage to move by; the figures alone say it.
    delta = f"{(got - ref) / ref * 100:+.1f}% vs {ref:.1f}" if ref else f"baseline {ref:.1f}"
    found.parts.append(f"{coll}: {got:.1f} GB/s ({delta})")
    if got < ref * (1 - margin_pct / 100):
        found.problems.append(f"{coll}: bus bandwidth {got:.1f} GB/s is below the floor")


def _expected(
    rows: Sequence[Mapping[str, Any]], margin: float, *, contracted: bool, shape: NcclShape
) -> str:
    parts = []
    for r in rows:
        ref = float(r["large_message_busbw_min_gbps"])
        coll = r.get("collective")
        if contracted:
            parts.append(f"{coll}: ≥ {ref:.1f} GB/s (contracted floor)")
            continue
        floor = ref * (1 - margin / 100)
        parts.append(f"{coll}: ≥ {floor:.1f} GB/s (baseline {ref:.1f} − {margin:g}%)")
    if shape.ranks or shape.hosts or shape.reservation_nodes:
        nodes = shape.hosts or shape.reservation_nodes
        where = f" on {', '.join(nodes)}" if nodes else ""
        ranks = f"{shape.ranks} ranks" if shape.ranks else "every rank"
        parts.append(f"{ranks}{where}, a new run with the baseline's command and NCCL version")
    return "; ".join(parts)
