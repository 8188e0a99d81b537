"""A failed-run upload against the fixture's failure record: what the record asks for
(`failure_record` in the fixture spec, docs/fixture-schema.md) that the upload lacks.

`InputsSeen.watch` passes the sources through unchanged while it notes which files hold a
launch command, scheduler output or a rank map, so the analysis still reads one file at a time.
`record_gaps` then compares the record with those notes and the analysis (ranks without a log,
the Flight Recorder state). A gap is reported, never a refusal: the analysis runs either way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .model import SourceFile
from .rankmap import looks_like_rank_map

# Launchers as people type them: the command, then an option (`torchrun --nnodes`, `srun -N`).
# An option is required so that a log line merely naming a launcher ("srun: error: …") is not one.
_LAUNCH = re.compile(
    rb"(?m)^[^\n]{0,80}?\b(?:torchrun|python3?\s+-m\s+torch\.distributed\.(?:run|launch)|"
    rb"deepspeed|accelerate\s+launch|mpirun|mpiexec|srun)\s+-{1,2}[A-Za-z]"
)
_SCHEDULER = re.compile(
    rb"\bsrun: |\bslurmstepd(?:-\S+)?: |\bSLURM_(?:JOB_ID|PROCID|NODELIST|NTASKS)\b|"
    rb"^JobID\s+JobName|(?m:^Events:\s*$)|\bPyTorchJob\b|(?m:^Controlled By:)|"
    rb"(?m:^\s+Reason:\s+(?:OOMKilled|Error|Completed))"
)
# A launch line or a scheduler's header sits near the top of its file.
_HEAD_BYTES = 64 * 1024
_NAMED = 5


@dataclass(frozen=True)
class Gap:
    key: str  # the failure record's key
    detail: str  # what is missing, in words


def _is_text(data: bytes) -> bool:
    return not data.startswith(b"\x80")  # a pickled Flight Recorder dump


@dataclass
class InputsSeen:
    """Which files showed each kind of input (the first few named)."""

    launch_command: list[str] = field(default_factory=list)
    scheduler_output: list[str] = field(default_factory=list)
    rank_map: list[str] = field(default_factory=list)

    def watch(self, sources: Iterable[SourceFile]) -> Iterator[SourceFile]:
        for source in sources:
            if source.refused is None:
                self._look(source)
            yield source

    def _look(self, source: SourceFile) -> None:
        if not _is_text(source.data):  # before slicing: 16,384 dumps need no copy each
            return
        head = source.data[:_HEAD_BYTES]
        if len(self.launch_command) < _NAMED and _LAUNCH.search(head):
            self.launch_command.append(source.name)
        if len(self.scheduler_output) < _NAMED and _SCHEDULER.search(head):
            self.scheduler_output.append(source.name)
        if len(self.rank_map) < _NAMED and looks_like_rank_map(source.name, head):
            self.rank_map.append(source.name)

    def to_json(self) -> dict[str, list[str]]:
        return {
            "launch_command": list(self.launch_command),
            "scheduler_output": list(self.scheduler_output),
            "rank_map": list(self.rank_map),
        }


def _ranks(ranks: list[int]) -> str:
    """0-3, 7, 9-10: consecutive ranks as ranges, at most 12 groups then a count."""
    groups: list[list[int]] = []
    for rank in sorted(set(ranks)):
        if groups and rank == groups[-1][1] + 1:
            groups[-1][1] = rank
        else:
            groups.append([rank, rank])
    shown = [f"{a}-{b}" if a != b else str(a) for a, b in groups[:12]]
    more = f" and {len(groups) - 12} more ranges" if len(groups) > 12 else ""
    return ", ".join(shown) + more


def _int_list(value: Any) -> list[int]:
    return [int(v) for v in value if isinstance(v, int)] if isinstance(value, list) else []


_NO_LAUNCH = (
    "No file shows the command that started the job (torchrun, srun, mpirun, deepspeed … with "
    "its options): add the launch script or the log's first lines."
)
_NO_MAP = (
    "No rank → node map (CSV rank,node[,local_rank,pci_bus_id] or JSON): ranks without a host "
    "in their own lines stay on no node."
)
_NO_SCHEDULER = (
    "No scheduler output: the Slurm job output (srun/slurmstepd lines, sacct), or kubectl "
    "describe pod and kubectl get events for the job's pods."
)
_NO_DUMPS = (
    "No Flight Recorder dump: run with TORCH_NCCL_TRACE_BUFFER_SIZE set (and "
    "TORCH_NCCL_DUMP_ON_TIMEOUT=1) and upload each rank's nccl_trace_rank_N."
)


def _inputs_gaps(wanted: set[str], inputs: Mapping[str, Any], rank_map: bool) -> list[Gap]:
    gaps = []
    if "launch_command" in wanted and not inputs.get("launch_command"):
        gaps.append(Gap("launch_command", _NO_LAUNCH))
    if "worker_gpu_map" in wanted and not (rank_map or inputs.get("rank_map")):
        gaps.append(Gap("worker_gpu_map", _NO_MAP))
    if "scheduler_output" in wanted and not inputs.get("scheduler_output"):
        gaps.append(Gap("scheduler_output", _NO_SCHEDULER))
    return gaps


def _analysis_gaps(wanted: set[str], analysis: Mapping[str, Any]) -> list[Gap]:
    gaps = []
    size = analysis.get("world_size")
    of = f" of {size}" if isinstance(size, int) else ""
    silent = _int_list(analysis.get("missing_ranks"))
    if "per_worker_logs" in wanted and silent:
        gaps.append(Gap("per_worker_logs", f"No log line from ranks {_ranks(silent)}{of}."))
    if "flight_recorder_dumps" in wanted:
        absent = _int_list(analysis.get("missing_dumps"))
        if analysis.get("flight_recorder") == "absent":
            gaps.append(Gap("flight_recorder_dumps", _NO_DUMPS))
        elif absent:
            gaps.append(Gap("flight_recorder_dumps", f"No dump from ranks {_ranks(absent)}{of}."))
    return gaps


def record_gaps(
    record: Mapping[str, Any], analysis: Mapping[str, Any], *, rank_map: bool = False
) -> list[Gap]:
    """What the failure record asks for and the upload lacks, in the record's order.
    `rank_map`: one was uploaded beside the bundle. An analysis stored without `inputs` (before
    they were noted) is judged on what it does hold."""
    wanted = {key for key, value in record.items() if value is True}
    inputs = analysis.get("inputs")
    gaps = _analysis_gaps(wanted, analysis)
    if isinstance(inputs, Mapping):
        gaps += _inputs_gaps(wanted, inputs, rank_map)
    order = list(record)
    return sorted(gaps, key=lambda g: order.index(g.key) if g.key in order else len(order))
