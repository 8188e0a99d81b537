"""`nvidia-smi -q` full report: the few fields acceptance needs (model, bus id, driver, memory,
ECC, remapped rows), mapped onto the same canonical keys as the --query-gpu CSV.

Sections nest by 4-space indentation. ECC counters are summed over SRAM/DRAM (and the later
SRAM Parity / SEC-DED split) into `ecc.errors.{un,}corrected.{volatile,aggregate}.total`.
"""

from __future__ import annotations

import re

from engine.evidence.parsers.base import GpuQueryError
from engine.evidence.parsers.nvidia_smi_query import KIND, GpuQueryResult, Value, convert

_GPU_RE = re.compile(r"^GPU\s+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s*$")
_KV_RE = re.compile(r"^(\s*)([^:]+?)\s*:\s*(.*?)\s*$")

_SIMPLE = {
    ("Product Name",): "name",
    ("Serial Number",): "serial",
    ("GPU UUID",): "uuid",
    ("VBIOS Version",): "vbios_version",
    ("Persistence Mode",): "persistence_mode",
    ("Performance State",): "pstate",
    ("Minor Number",): "minor_number",
    ("PCI", "Bus Id"): "pci.bus_id",
    ("FB Memory Usage", "Total"): "memory.total",
    ("FB Memory Usage", "Used"): "memory.used",
    ("Temperature", "GPU Current Temp"): "temperature.gpu",
    ("Utilization", "Gpu"): "utilization.gpu",
    ("Power Readings", "Power Draw"): "power.draw",
    ("GPU Power Readings", "Power Draw"): "power.draw",
    ("GPU Power Readings", "Instantaneous Power Draw"): "power.draw",
    ("Power Readings", "Power Limit"): "power.limit",
    ("GPU Power Readings", "Current Power Limit"): "power.limit",
    ("ECC Mode", "Current"): "ecc.mode.current",
    ("Remapped Rows", "Correctable Error"): "remapped_rows.correctable",
    ("Remapped Rows", "Uncorrectable Error"): "remapped_rows.uncorrectable",
    ("Remapped Rows", "Pending"): "remapped_rows.pending",
    ("Remapped Rows", "Remapping Failure Occurred"): "remapped_rows.failure",
}


def _ecc_key(path: tuple[str, ...]) -> str | None:
    """Map an ECC counter path to the canonical total it adds to."""
    if len(path) < 3 or path[0] != "ECC Errors" or path[1] not in ("Volatile", "Aggregate"):
        return None
    scope = path[1].lower()
    leaf = path[-1]
    # Old layout: Volatile > Double Bit > Total (uncorrectable), Single Bit > Total.
    if "Double Bit" in path and leaf == "Total":
        return f"ecc.errors.uncorrected.{scope}.total"
    if "Single Bit" in path and leaf == "Total":
        return f"ecc.errors.corrected.{scope}.total"
    if "Bit" in " ".join(path[2:-1]):
        return None
    if "Uncorrectable" in leaf:
        return f"ecc.errors.uncorrected.{scope}.total"
    if "Correctable" in leaf:
        return f"ecc.errors.corrected.{scope}.total"
    return None


def add_ecc(gpu: dict[str, Value], key: str, raw: str, *, line: int) -> None:
    """Add one ECC counter to the GPU's total; "N/A" leaves an unknown total unknown."""
    value = convert(key, raw, line=line)
    previous = gpu.get(key)
    if isinstance(value, int | float):
        gpu[key] = (previous if isinstance(previous, int | float) else 0) + value
    elif key not in gpu:
        gpu[key] = None


def parse_q(text: str) -> GpuQueryResult:
    driver: str | None = None
    cuda: str | None = None
    gpus: list[dict[str, Value]] = []
    gpu_lines: list[int] = []
    current: dict[str, Value] | None = None
    stack: list[tuple[int, str]] = []  # (indent, section name)
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip() or line.strip() in ("[...]", "..."):
            continue
        m_gpu = _GPU_RE.match(line)
        if m_gpu:
            current = {"index": len(gpus), "pci.bus_id": m_gpu.group(1)}
            gpus.append(current)
            gpu_lines.append(lineno)
            stack = []
            continue
        indent = len(line) - len(line.lstrip(" "))
        m_kv = _KV_RE.match(line)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if m_kv is None:
            stack.append((indent, line.strip()))
            continue
        key, raw = m_kv.group(2), m_kv.group(3)
        if current is None:
            if key == "Driver Version":
                driver = raw
            elif key == "CUDA Version":
                cuda = raw
            continue
        if indent == 0:
            continue
        path = (*(name for _, name in stack), key)
        simple = _SIMPLE.get(path)
        if simple is not None:
            current[simple] = convert(simple, raw, line=lineno)
            continue
        ecc = _ecc_key(path)
        if ecc is not None:
            add_ecc(current, ecc, raw, line=lineno)
    if not gpus:
        raise GpuQueryError("nvidia-smi -q report without any 'GPU <bus id>' section", kind=KIND)
    for gpu in gpus:
        gpu["driver_version"] = driver
        gpu.setdefault("cuda_version", cuda)
    return GpuQueryResult(
        gpus=tuple(gpus),
        source_format="query",
        driver_version=driver,
        cuda_version=cuda,
        gpu_lines=tuple(gpu_lines),
    )
