"""nvidia-smi GPU inventory: `--query-gpu --format=csv[,noheader][,nounits]`, the plain table
(pre-530 narrow, 530+ wide, 590 separators) and `nvidia-smi -q` (see nvidia_smi_q).

Every variant yields `gpus`: dicts keyed by nvidia-smi's canonical query field names
(`name`, `pci.bus_id`, `memory.total`, `ecc.errors.uncorrected.volatile.total`, ...).
Numbers lose their units (MiB, W, %, C); N/A-style values become None; the remapped-rows flags
(`remapped_rows.pending`, `remapped_rows.failure`) become True/False, however printed.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import ClassVar

from engine.evidence.parsers.base import GpuQueryError, decode_text
from engine.evidence.parsers.header import EvidenceOrigin

KIND = "nvidia-smi-query"

Value = str | int | float | bool | None

# --format=csv,noheader drops the header: assume the field list our bundle asks for.
DEFAULT_FIELDS = (
    "index",
    "name",
    "pci.bus_id",
    "driver_version",
    "memory.total",
    "ecc.errors.uncorrected.volatile.total",
)
_NUMERIC_PREFIXES = (
    "index",
    "count",
    "memory.",
    "temperature.",
    "power.",
    "utilization.",
    "clocks.",
    "clocks_event_reasons_counters.",
    "ecc.errors.",
    "retired_pages.",
    "remapped_rows.correctable",
    "remapped_rows.uncorrectable",
    "fan.speed",
    "pcie.link.gen.",
    "pcie.link.width.",
    "enforced.power",
    "encoder.stats.",
)
# Row-remapper flags: `nvidia-smi -q` prints Yes/No, --query-remapped-rows prints 1/0.
_FLAGS = frozenset({"remapped_rows.pending", "remapped_rows.failure"})
_FLAG_WORDS = {"yes": True, "1": True, "no": False, "0": False}
_MISSING = {"", "n/a", "[n/a]", "[not supported]", "not supported", "err!", "[unknown error]"}
# Aliases accepted in a hand-written header; nvidia-smi itself echoes canonical names.
_ALIASES = {"gpu_name": "name", "gpu_bus_id": "pci.bus_id", "gpu_uuid": "uuid"}
# Some field names carry capitals (vgpu_device_capability.fractional_multiVgpu), none a space.
_HEADER_CELL_RE = re.compile(r"^[a-z][A-Za-z0-9_.]*(?: \[[^\]]*\])?$")
_UNIT_RE = re.compile(r"^(-?\d+(?:\.\d+)?)\s*(?:MiB|GiB|KiB|W|%|C|MHz|us|B)?$")
_NON_FINITE_RE = re.compile(r"^[+-]?(?:nan|inf|infinity)\b", re.I)
# No counter, clock or size nvidia-smi prints comes near this many digits.
_MAX_DIGITS = 30


@dataclass(frozen=True)
class GpuQueryResult:
    KIND: ClassVar[str] = KIND
    gpus: tuple[dict[str, Value], ...]
    source_format: str  # "csv" | "table" | "query" | "list" (nvidia-smi -L)
    driver_version: str | None = None
    cuda_version: str | None = None
    fields: tuple[str, ...] = ()
    gpu_lines: tuple[int, ...] = ()
    # "Unable to determine the device handle for GPU...": a GPU the driver lost, left out of
    # the table, CSV or report that follows.
    lost_gpus: tuple[str, ...] = ()
    # The collector's header, when the file has one (engine/evidence/parsers/header.py).
    origin: EvidenceOrigin | None = field(default=None, metadata={"json": False})


_LOST_RE = re.compile(r"^[ \t]*Unable to determine the device handle for GPU.*$", re.M | re.I)


# nvidia-smi -L: "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)", MIG devices indented below.
_LIST_RE = re.compile(r"^GPU (\d+): (.+?) \(UUID: (GPU-[0-9A-Fa-f-]+)\)\s*$")
_LIST_MIG_RE = re.compile(r"^\s+MIG \S+\s+Device\s+\d+: \(UUID: MIG-[^)]*\)\s*$")


def _parse_list(text: str) -> GpuQueryResult:
    gpus: list[dict[str, Value]] = []
    gpu_lines: list[int] = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        if m := _LIST_RE.match(line):
            gpus.append({"index": int(m.group(1)), "name": m.group(2), "uuid": m.group(3)})
            gpu_lines.append(lineno)
        elif _LIST_MIG_RE.match(line) and gpus:
            mig = gpus[-1].get("mig.devices")
            gpus[-1]["mig.devices"] = (mig if isinstance(mig, int) else 0) + 1
        elif line.strip():
            raise GpuQueryError(
                f"expected 'GPU <n>: <name> (UUID: ...)' as nvidia-smi -L prints, found "
                f"{line.strip()[:40]!r}",
                line=lineno,
                kind=KIND,
            )
    return GpuQueryResult(
        gpus=tuple(gpus),
        source_format="list",
        fields=("index", "name", "uuid"),
        gpu_lines=tuple(gpu_lines),
    )


def _take_lost(text: str) -> tuple[str, tuple[str, ...]]:
    """The lost-GPU lines, and the text with each blanked (line numbers stay as they were)."""
    lost = tuple(m.group(0).strip() for m in _LOST_RE.finditer(text))
    return (_LOST_RE.sub("", text) if lost else text), lost


def detect(text: str) -> float:
    head, lost = _take_lost(text[:20_000])
    first = head.lstrip().split("\n", 1)[0]
    # Newer drivers name the kernel driver "KMD Version" in the table's header.
    if "NVIDIA-SMI" in head and re.search(r"(?:Driver|KMD) Version", head) and "|" in head:
        return 0.95
    if "<nvidia_smi_log" in head:
        return 0.95  # -q -x
    if "==============NVSMI LOG==============" in head or (
        "Attached GPUs" in head and "Product Name" in head
    ):
        return 0.95
    fields = [_canonical(f) for f in first.split(",")]
    canonical = {"name", "pci.bus_id", "driver_version", "index", "uuid", "memory.total"}
    # --query-remapped-rows has one row per GPU too, headed gpu_bus_id, remapped_rows.*
    prefixed = any(f.startswith(("ecc.", "remapped_rows.")) for f in fields)
    if len(fields) > 1 and (set(fields) & canonical or prefixed):
        return 0.9
    if lost and (not first or first.startswith("No devices were found")):
        return 0.8
    if _LIST_RE.match(first):
        return 0.85
    if re.match(r"^\d+, NVIDIA ", first) or re.match(r"^NVIDIA [^,]+, [0-9A-F]{8}:", first):
        return 0.6
    return 0.0


def convert(field_name: str, raw: str, *, line: int | None = None) -> Value:
    """Canonical field value: numbers without units for numeric fields, else the string."""
    value = raw.strip()
    if value.lower() in _MISSING or value.startswith("[Requested functionality"):
        return None
    if field_name in _FLAGS:
        flag = _FLAG_WORDS.get(value.lower())
        if flag is None:
            raise GpuQueryError(
                f"{field_name} reads {value[:30]!r}, expected Yes/No (nvidia-smi -q) or 1/0 "
                "(--query-remapped-rows)",
                line=line,
                kind=KIND,
            )
        return flag
    if field_name.startswith(_NUMERIC_PREFIXES):
        m = _UNIT_RE.match(value)
        if m:
            number = m.group(1)
            if len(number) > _MAX_DIGITS:
                raise GpuQueryError(
                    f"{field_name} is {number[:20]}..., too many digits for a real value",
                    line=line,
                    kind=KIND,
                )
            return float(number) if "." in number else int(number)
        # NaN or infinity in a counter is corrupt output, not "not shown".
        if _NON_FINITE_RE.match(value):
            raise GpuQueryError(
                f"expected a number for {field_name}, found {value[:30]!r}", line=line, kind=KIND
            )
    return value


def _canonical(header: str) -> str:
    name = header.strip().split(" [", 1)[0].strip()
    return _ALIASES.get(name, name)


# What each assumed column of a CSV without a header must look like, so that another field
# list printed with noheader is refused rather than read under the wrong names.
_BUS_ID_RE = re.compile(r"^[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]$")
_ASSUMED_SHAPES: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("a GPU index", str.isdecimal),
    ("a GPU name", lambda c: bool(c) and _UNIT_RE.match(c) is None),
    ("a PCI bus id", lambda c: _BUS_ID_RE.match(c) is not None),
    ("a driver version", lambda c: re.match(r"^\d+\.\d+(?:\.\d+)*$", c) is not None),
    ("a memory size", lambda c: c.lower() in _MISSING or _UNIT_RE.match(c) is not None),
    ("an ECC count", lambda c: c.lower() in _MISSING or c.isdecimal()),
)


def _check_headerless(cells: list[str], lineno: int) -> None:
    for position, (cell, (what, fits)) in enumerate(zip(cells, _ASSUMED_SHAPES, strict=False)):
        if not fits(cell.strip()):
            raise GpuQueryError(
                f"column {position + 1} reads {cell.strip()[:30]!r}, not {what}: a CSV without a "
                f"header must list {', '.join(DEFAULT_FIELDS[: len(cells)])} in that order; "
                "keep the header (drop noheader) so the columns can be named",
                line=lineno,
                kind=KIND,
            )


def _parse_csv(text: str) -> GpuQueryResult:
    lines = [(i, ln) for i, ln in enumerate(text.split("\n"), start=1) if ln.strip()]
    first_cells = [c.strip() for c in lines[0][1].split(",")]
    # Header cells are lower-case field names, optionally with a unit: "memory.used [MiB]".
    has_header = all(_HEADER_CELL_RE.match(c) for c in first_cells)
    if has_header:
        fields = tuple(_canonical(c) for c in first_cells)
        body = lines[1:]
    else:
        fields = DEFAULT_FIELDS[: len(first_cells)]
        if len(first_cells) > len(DEFAULT_FIELDS):
            raise GpuQueryError(
                f"CSV without a header has {len(first_cells)} fields; add the header "
                "(drop noheader) so the columns can be named",
                line=lines[0][0],
                kind=KIND,
            )
        body = lines
        for lineno, line in body:
            _check_headerless(next(csv.reader([line], skipinitialspace=True)), lineno)
    if "pid" in fields and "used_gpu_memory" in fields:
        raise GpuQueryError(
            "this is --query-compute-apps output (processes), not --query-gpu", kind=KIND
        )
    gpus: list[dict[str, Value]] = []
    gpu_lines: list[int] = []
    for lineno, line in body:
        if line.strip() in ("[...]", "...", "…"):
            continue  # an author's elision in a pasted sample
        cells = next(csv.reader([line], skipinitialspace=True))
        if len(cells) != len(fields):
            raise GpuQueryError(
                f"expected {len(fields)} comma-separated fields, found {len(cells)}",
                line=lineno,
                kind=KIND,
            )
        gpus.append({f: convert(f, c, line=lineno) for f, c in zip(fields, cells, strict=True)})
        gpu_lines.append(lineno)
    if not gpus:
        raise GpuQueryError("CSV header without any GPU rows", kind=KIND)
    for position, gpu in enumerate(gpus):
        gpu.setdefault("index", position)
    drivers = {g.get("driver_version") for g in gpus} - {None}
    return GpuQueryResult(
        gpus=tuple(gpus),
        source_format="csv",
        driver_version=str(next(iter(drivers))) if len(drivers) == 1 else None,
        fields=fields,
        gpu_lines=tuple(gpu_lines),
    )


_HEADER_RE = re.compile(
    r"NVIDIA-SMI\s+(\S+)\s+(?:Driver|KMD) Version:\s*(\S+)(?:\s+CUDA (?:UMD )?Version:\s*(\S+))?"
)
_ROW1_RE = re.compile(
    r"^\|\s*(\d+)\s+(.+?)\s+(On|Off|N/A|ERR!)\s*\|\s*([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:"
    r"[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s+(\S+)\s*\|\s*(\S+)\s*\|"
)
_ROW2_RE = re.compile(
    r"^\|\s*(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*/\s*(\S+)\s*\|\s*(\S+)\s*/\s*(\S+)\s*\|"
    r"\s*(\S+)\s+(.+?)\s*\|"
)


# The third line of a GPU's box: only the "MIG M." cell (Enabled, Disabled, N/A; a trailing
# '*' marks a change that waits for a GPU reset).
_ROW3_RE = re.compile(r"^\|\s*\|\s*\|\s*(\S+)\s*\|$")
# A row of the "MIG devices:" box: GPU, GI, CI, MIG dev | memory | SM count, volatile
# uncorrected ECC | shared engines.
_MIG_ROW_RE = re.compile(
    r"^\|\s*(\d{1,4})\s+(\d+)\s+(\d+)\s+(\d+)\s*\|[^|]*\|\s*\d+\s+(\d+|N/A)\s*\|"
)
_ECC = "ecc.errors.uncorrected.volatile.total"


def _apply_mig(gpus: list[dict[str, Value]], mig_ecc: dict[int, int]) -> None:
    """With MIG on, the GPU's ECC cell reads "On" and the counts sit on the MIG devices. Their
    sum leaves out errors outside any instance, so only a non-zero sum is kept (it is already
    a failure); a zero sum stays unknown rather than a clean pass."""
    for gpu in gpus:
        if isinstance(gpu.get(_ECC), str):
            gpu[_ECC] = None
        index = gpu.get("index")
        if gpu[_ECC] is None and isinstance(index, int) and mig_ecc.get(index, 0) > 0:
            gpu[_ECC] = mig_ecc[index]


def _mig_row(s: str, lineno: int, mig_ecc: dict[int, int], mig_rows: dict[int, int]) -> bool:
    m = _MIG_ROW_RE.match(s)
    if m is None:
        return False
    gpu = int(m.group(1))
    mig_rows[gpu] = mig_rows.get(gpu, 0) + 1
    ecc = convert(_ECC, m.group(5), line=lineno)
    if isinstance(ecc, int):
        mig_ecc[gpu] = mig_ecc.get(gpu, 0) + ecc
    return True


_ROW2_FIELDS = (
    "fan.speed",
    "temperature.gpu",
    "pstate",
    "power.draw",
    "power.limit",
    "memory.used",
    "memory.total",
    "utilization.gpu",
    "compute_mode",
)


def _first_row(m: re.Match[str], lineno: int) -> dict[str, Value]:
    return {
        "index": convert("index", m.group(1), line=lineno),
        "name": m.group(2).strip(),
        "persistence_mode": convert("persistence_mode", m.group(3), line=lineno),
        "pci.bus_id": m.group(4),
        "display_active": convert("display_active", m.group(5), line=lineno),
        _ECC: convert(_ECC, m.group(6), line=lineno),
    }


def _finish_table(
    gpus: list[dict[str, Value]],
    driver: str | None,
    mig_ecc: dict[int, int],
    mig_rows: dict[int, int],
) -> None:
    _apply_mig(gpus, mig_ecc)
    for gpu in gpus:
        gpu["driver_version"] = driver
        index = gpu.get("index")
        if isinstance(index, int) and gpu.get("mig.mode.current") == "Enabled":
            gpu["mig.devices"] = mig_rows.get(index, 0)


def _parse_table(text: str) -> GpuQueryResult:
    driver = cuda = None
    gpus: list[dict[str, Value]] = []
    gpu_lines: list[int] = []
    pending: dict[str, Value] | None = None
    mig_ecc: dict[int, int] = {}
    mig_rows: dict[int, int] = {}
    for lineno, line in enumerate(text.split("\n"), start=1):
        s = line.strip()
        if "Processes:" in s:
            break
        if _mig_row(s, lineno, mig_ecc, mig_rows):
            continue
        m3 = _ROW3_RE.match(s)
        if m3 and pending is not None and "fan.speed" in pending:
            pending.setdefault("mig.mode.current", convert("mig.mode", m3.group(1)))
        elif m_head := _HEADER_RE.search(s):
            driver, cuda = m_head.group(2), m_head.group(3)
        elif m1 := _ROW1_RE.match(s):
            pending = _first_row(m1, lineno)
            gpus.append(pending)
            gpu_lines.append(lineno)
        elif (m2 := _ROW2_RE.match(s)) and pending is not None and "fan.speed" not in pending:
            for position, name in enumerate(_ROW2_FIELDS, start=1):
                pending[name] = convert(name, m2.group(position), line=lineno)
    if driver is None and not gpus:
        raise GpuQueryError("no NVIDIA-SMI header or GPU rows in the table", kind=KIND)
    _finish_table(gpus, driver, mig_ecc, mig_rows)
    return GpuQueryResult(
        gpus=tuple(gpus),
        source_format="table",
        driver_version=driver,
        cuda_version=cuda,
        gpu_lines=tuple(gpu_lines),
    )


def parse(text: str | bytes) -> GpuQueryResult:
    text, lost = _take_lost(decode_text(text, kind=KIND, error=GpuQueryError))
    if lost and not text.replace("No devices were found", "").strip():
        raise GpuQueryError(f"nvidia-smi lists no GPU; it printed {lost[0]!r}", line=1, kind=KIND)
    if not text.strip():
        raise GpuQueryError("empty file", kind=KIND)
    result = _parse_any(text)
    return replace(result, lost_gpus=lost) if lost else result


def _parse_any(text: str) -> GpuQueryResult:
    head = text[:20_000]
    if "<nvidia_smi_log" in head:
        from engine.evidence.parsers.nvidia_smi_xml import parse_xml

        return parse_xml(text)
    if "NVSMI LOG" in head or ("Attached GPUs" in head and "Product Name" in head):
        from engine.evidence.parsers.nvidia_smi_q import parse_q

        return parse_q(text)
    if "NVIDIA-SMI" in head and "|" in head:
        return _parse_table(text)
    if _LIST_RE.match(text.lstrip().split("\n", 1)[0]):
        return _parse_list(text)
    if "," not in text.lstrip().split("\n", 1)[0]:
        raise GpuQueryError(
            "not nvidia-smi output: expected a --query-gpu CSV, the nvidia-smi table or -q",
            line=1,
            kind=KIND,
        )
    return _parse_csv(text)
