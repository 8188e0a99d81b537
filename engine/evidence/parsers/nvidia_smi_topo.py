"""`nvidia-smi topo -m`: the GPU/NIC link matrix plus CPU/NUMA affinity per GPU.

Real output is tab-separated, docs often re-space it; cells are read as whitespace tokens and
the affinity tail by tabs when present. The legend blocks are skipped, except the NIC legend,
which names each NIC (NIC0 -> mlx5_0).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from engine.evidence.parsers.base import TopoError, decode_text, strip_ansi
from engine.evidence.parsers.header import EvidenceOrigin

KIND = "nvidia-smi-topo"

_DEVICE_COL_RE = re.compile(r"^(?:GPU\d+|NIC\d+|mlx\d+_\w+|hfi\d+_\d+|[a-z]+\d*_\d+)$")
_CELL_RE = re.compile(r"^(?:X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC|PCI|N/A)$")
_EXTRA_RE = re.compile(r"CPU Affinity|NUMA Affinity|GPU NUMA ID")
_NIC_LEGEND_RE = re.compile(r"^\s*(NIC\d+)\s*:\s*(\S+)\s*$")
_EXTRA_KEYS = {
    "CPU Affinity": "cpu_affinity",
    "NUMA Affinity": "numa_affinity",
    "GPU NUMA ID": "gpu_numa_id",
}


@dataclass(frozen=True)
class GpuAffinity:
    cpu_affinity: str | None = None
    numa_affinity: str | None = None
    gpu_numa_id: str | None = None


@dataclass(frozen=True)
class TopoResult:
    KIND: ClassVar[str] = KIND
    gpus: tuple[str, ...]
    nics: tuple[str, ...]
    matrix: dict[str, dict[str, str]]
    affinity: dict[str, GpuAffinity]
    nic_names: dict[str, str] = field(default_factory=dict)
    row_lines: dict[str, int] = field(default_factory=dict)
    # The collector's header, when the file has one (engine/evidence/parsers/header.py).
    origin: EvidenceOrigin | None = field(default=None, metadata={"json": False})


def detect(text: str) -> float:
    head = strip_ansi(text[:50_000])
    if re.search(r"^\s*GPU0\s+(?:X|NV\d+|PIX|PXB|PHB|NODE|SYS)\b", head, re.M) is None:
        if re.search(r"^\s*GPU0(?:\s+GPU1)?(?:\s+NIC0|\s+mlx5_0)?\s+CPU Affinity", head, re.M):
            return 0.7
        return 0.0
    if "CPU Affinity" in head or "Legend:" in head:
        return 0.95
    return 0.8


def _is_header(tokens: list[str]) -> bool:
    return bool(tokens) and _DEVICE_COL_RE.match(tokens[0]) is not None and tokens[0] != "X"


@dataclass
class _Matrix:
    """`nvidia-smi topo -m` as it is read: the header's devices, then one row per device."""

    columns: list[str] | None = None
    extras: list[str] = field(default_factory=list)
    matrix: dict[str, dict[str, str]] = field(default_factory=dict)
    affinity: dict[str, GpuAffinity] = field(default_factory=dict)
    row_lines: dict[str, int] = field(default_factory=dict)
    nic_names: dict[str, str] = field(default_factory=dict)
    in_legend: bool = False

    def read(self, line: str, s: str, lineno: int) -> None:
        """One non-empty line (`s` stripped)."""
        if s.startswith("Legend:") or s.startswith("NIC Legend:"):
            self.in_legend = True
            return
        if self.in_legend:
            m_nic = _NIC_LEGEND_RE.match(s)
            if m_nic:
                self.nic_names[m_nic.group(1)] = m_nic.group(2)
            return
        tokens = s.split()
        if self.columns is None:
            # Text before the header (a banner such as "NVIDIA Topology:") is skipped.
            if _is_header(tokens) and len(tokens) > 1 and tokens[1] not in ("X",):
                self.read_header(tokens, s)
            return
        if tokens[0] not in self.columns and self.matrix:
            self.in_legend = True  # the matrix ended; what follows is not ours
            return
        self.read_row(self.columns, tokens, line, lineno)

    def read_header(self, tokens: list[str], s: str) -> None:
        cols: list[str] = []
        for tok in tokens:
            if _DEVICE_COL_RE.match(tok) is None:
                break
            cols.append(tok)
        self.columns = cols
        tail = s[s.find(cols[-1]) + len(cols[-1]) :]
        self.extras = [m.group(0) for m in _EXTRA_RE.finditer(tail)]

    def read_row(self, columns: list[str], tokens: list[str], line: str, lineno: int) -> None:
        name = tokens[0]
        if name not in columns:
            raise TopoError(
                f"row {name!r} is not one of the header's devices ({', '.join(columns)})",
                line=lineno,
                kind=KIND,
            )
        cells = tokens[1 : 1 + len(columns)]
        if len(cells) < len(columns):
            raise TopoError(
                f"expected {len(columns)} link cells for {name}, found {len(cells)}",
                line=lineno,
                kind=KIND,
            )
        for col, cell in zip(columns, cells, strict=True):
            if _CELL_RE.match(cell) is None:
                raise TopoError(
                    f"unknown link type {cell!r} between {name} and {col}", line=lineno, kind=KIND
                )
        self.matrix[name] = dict(zip(columns, cells, strict=True))
        self.row_lines[name] = lineno
        if name.startswith("GPU") and self.extras:
            self.affinity[name] = _affinity(line, len(columns), self.extras)


def _result(read: _Matrix) -> TopoResult:
    """The matrix as read, refused where it has no header, no rows or a GPU without a row."""
    if read.columns is None:
        raise TopoError("no topology matrix found (missing the GPU0 GPU1 ... header)", kind=KIND)
    if not read.matrix:
        raise TopoError("topology header without any GPU rows", kind=KIND)
    gpus = tuple(c for c in read.columns if c.startswith("GPU"))
    nics = tuple(c for c in read.columns if not c.startswith("GPU"))
    missing = [g for g in gpus if g not in read.matrix]
    if missing:
        # A cut-off paste would otherwise check only the pairs it happens to contain.
        raise TopoError(
            f"the header lists {len(gpus)} GPUs but there is no row for {', '.join(missing)}: "
            "the output looks truncated",
            line=max(read.row_lines.values()) + 1,
            kind=KIND,
        )
    return TopoResult(
        gpus=gpus,
        nics=nics,
        matrix=read.matrix,
        affinity=read.affinity,
        nic_names=read.nic_names,
        row_lines=read.row_lines,
    )


def parse(text: str | bytes) -> TopoResult:
    text = decode_text(text, kind=KIND, error=TopoError)
    read = _Matrix()
    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = strip_ansi(raw).rstrip("\n")
        s = line.strip()
        if s:
            read.read(line, s, lineno)
    return _result(read)


def _affinity(line: str, ncells: int, extras: list[str]) -> GpuAffinity:
    # Find where the link cells end, then read the tail by tabs (empty cells survive) or spaces.
    spans = list(re.finditer(r"\S+", line))
    if len(spans) <= ncells + 1:
        return GpuAffinity()
    tail = line[spans[ncells].end() :]
    if "\t" in tail:
        tail = tail.lstrip(" ")
        tail = tail.removeprefix("\t")
        values = [v.strip() for v in tail.split("\t")]
    else:
        values = tail.split()
    found: dict[str, str | None] = {}
    for key, value in zip(extras, values, strict=False):
        found[_EXTRA_KEYS[key]] = value if value and value != "N/A" else None
    return GpuAffinity(**found)
