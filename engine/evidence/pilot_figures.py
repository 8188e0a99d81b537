"""The figures a pilot verifies, read from its parsed evidence, to set beside the bid's claims.

Each figure is read where the acceptance checks read it, so a pilot and a burn-in of the same
cluster agree: the lowest large-message all_reduce bus bandwidth (`large_message.py`), the
slowest one-way fabric bandwidth and the worst p99 fabric latency (`checks/probes.py`). Two are
the pilot's own: the slowest GPU-to-GPU copy `nvbandwidth` measured inside a node (NVLink), and
the buyer's application run's median step time (its per-rank step times).

A figure is the weakest reading over every file of its kind, with the file and line it came
from; a kind with no readable file gives no figure rather than a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from engine.evidence.checks.model import EvidenceItem
from engine.evidence.checks.probes import Worst, fabric_bandwidth_worst, fabric_latency_worst
from engine.evidence.large_message import lowest_large_busbw, row_busbw
from engine.evidence.parsers.nccl_model import NcclTestsResult
from engine.evidence.parsers.nvbandwidth import NvbandwidthResult
from engine.evidence.parsers.perftest import PerftestResult
from engine.evidence.parsers.step_times import StepTimesResult
from engine.formatting import DASH, number

BUS_BANDWIDTH = "bus_bandwidth"
NVLINK_BANDWIDTH = "nvlink_bandwidth"
FABRIC_BANDWIDTH = "fabric_bandwidth"
FABRIC_LATENCY = "fabric_p99_latency"
APP_STEP_TIME = "app_step_time"


@dataclass(frozen=True)
class FigureSpec:
    key: str
    label: str
    unit: str
    kind: str  # the evidence kind it is read from
    higher_is_better: bool


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(BUS_BANDWIDTH, "all_reduce bus bandwidth (large messages)", "GB/s", "nccl-tests",
               True),
    FigureSpec(NVLINK_BANDWIDTH, "NVLink GPU-to-GPU copy, slowest pair", "GB/s", "nvbandwidth",
               True),
    FigureSpec(FABRIC_BANDWIDTH, "InfiniBand bandwidth per NIC, slowest run", "Gb/s", "perftest",
               True),
    FigureSpec(FABRIC_LATENCY, "InfiniBand p99 latency, worst run", "µs", "perftest", False),
    FigureSpec(APP_STEP_TIME, "Application step time, median", "s", "step-times", False),
)  # fmt: skip
SPECS = {spec.key: spec for spec in FIGURES}


@dataclass(frozen=True)
class Figure:
    """One verified figure: its value, where it was read (`ref` names the file) and the line."""

    key: str
    value: float
    where: str
    ref: str
    line: int | None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Figure:
        line = data.get("line")
        return cls(
            key=str(data["key"]),
            value=float(data["value"]),
            where=str(data.get("where") or ""),
            ref=str(data.get("ref") or ""),
            line=int(line) if isinstance(line, int) else None,
        )


def _bus_bandwidth(parsed: Any, large_bytes: int) -> Worst | None:
    if not isinstance(parsed, NcclTestsResult) or parsed.collective != "all_reduce":
        return None
    rows = [
        (
            row.size,
            row_busbw(
                row.out_of_place.busbw if row.out_of_place else None,
                row.in_place.busbw if row.in_place else None,
            ),
        )
        for row in parsed.rows
    ]
    found = lowest_large_busbw(rows, large_bytes=large_bytes)
    if found is None:
        return None
    row = parsed.rows[found.index]
    return Worst(found.busbw, f"{parsed.ranks or '?'} ranks, {row.size} B", row.line)


def _nvlink_bandwidth(parsed: Any) -> Worst | None:
    """The slowest one-way device-to-device copy: inside a node those go over NVLink."""
    if not isinstance(parsed, NvbandwidthResult):
        return None
    found = [
        Worst(value, f"GPU {row} ← GPU {col}, {m.testcase}", m.line)
        for m in parsed.matrices
        if m.testcase.startswith("device_to_device_")
        and "bidirectional" not in m.testcase
        and m.unit == "GB/s"
        for row, col, value in m.cells()
    ]
    return min(found, key=lambda w: w.value, default=None)


def _fabric(reader: Callable[[PerftestResult], Worst | None]) -> Callable[[Any], Worst | None]:
    return lambda parsed: reader(parsed) if isinstance(parsed, PerftestResult) else None


def _app_step_time(parsed: Any) -> Worst | None:
    if not isinstance(parsed, StepTimesResult) or parsed.run_median is None:
        return None
    first = min((r.line for r in parsed.per_rank), default=None)
    return Worst(parsed.run_median, f"median of {parsed.ranks} ranks' medians", first)


def verified_figures(items: Iterable[EvidenceItem], *, large_bytes: int) -> list[Figure]:
    """The weakest reading of each figure over the readable files, in `FIGURES` order."""
    readers: dict[str, Callable[[Any], Worst | None]] = {
        BUS_BANDWIDTH: lambda parsed: _bus_bandwidth(parsed, large_bytes),
        NVLINK_BANDWIDTH: _nvlink_bandwidth,
        FABRIC_BANDWIDTH: _fabric(fabric_bandwidth_worst),
        FABRIC_LATENCY: _fabric(fabric_latency_worst),
        APP_STEP_TIME: _app_step_time,
    }
    readable = [item for item in items if item.parsed is not None]
    out: list[Figure] = []
    for spec in FIGURES:
        weakest: Figure | None = None
        for item in readable:
            if item.kind != spec.kind or (worst := readers[spec.key](item.parsed)) is None:
                continue
            worse = weakest is None or (
                worst.value < weakest.value
                if spec.higher_is_better
                else worst.value > weakest.value
            )
            if worse:
                weakest = Figure(spec.key, worst.value, worst.where, item.ref, worst.line)
        if weakest is not None:
            out.append(weakest)
    return out


def against_claim(spec: FigureSpec, verified: float, claimed: float | None) -> float | None:
    """How the verified figure stands against the claim, as a share of it where higher is
    better (0.96: 96 % of what was claimed) and of the claim over it where lower is better, so
    that below 1 always reads "short of the claim". None where nothing was claimed."""
    if claimed is None or claimed <= 0 or verified <= 0:
        return None
    return verified / claimed if spec.higher_is_better else claimed / verified


def show(spec: FigureSpec, value: float | None) -> str:
    """A figure as pages and the API's text print it: '198.4 Gb/s', '—' where there is none."""
    return DASH if value is None else f"{number(value)} {spec.unit}"
