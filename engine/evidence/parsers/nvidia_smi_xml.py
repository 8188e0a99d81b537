"""`nvidia-smi -q -x`: the full report as XML (`<nvidia_smi_log>`, nvsmi_device_v*.dtd), mapped
onto the same canonical keys as `-q` text (`nvidia_smi_q.py`) and the --query-gpu CSV.

ECC counters are summed the same way: `sram_correctable` + `dram_correctable` (the old layout's
`single_bit/total`) and every `*_uncorrectable*` counter, SRAM parity and SEC-DED included (the
old `double_bit/total`), into `ecc.errors.{un,}corrected.{volatile,aggregate}.total`.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from engine.evidence.parsers.base import GpuQueryError
from engine.evidence.parsers.nvidia_smi_q import add_ecc
from engine.evidence.parsers.nvidia_smi_query import KIND, GpuQueryResult, Value, convert

_SIMPLE = {
    ("product_name",): "name",
    ("serial",): "serial",
    ("uuid",): "uuid",
    ("vbios_version",): "vbios_version",
    ("persistence_mode",): "persistence_mode",
    ("performance_state",): "pstate",
    ("minor_number",): "minor_number",
    ("pci", "pci_bus_id"): "pci.bus_id",
    ("fb_memory_usage", "total"): "memory.total",
    ("fb_memory_usage", "used"): "memory.used",
    ("temperature", "gpu_temp"): "temperature.gpu",
    ("utilization", "gpu_util"): "utilization.gpu",
    ("power_readings", "power_draw"): "power.draw",  # drivers before 530
    ("gpu_power_readings", "power_draw"): "power.draw",
    ("gpu_power_readings", "instant_power_draw"): "power.draw",
    ("power_readings", "power_limit"): "power.limit",
    ("gpu_power_readings", "current_power_limit"): "power.limit",
    ("ecc_mode", "current_ecc"): "ecc.mode.current",
    ("remapped_rows", "remapped_row_corr"): "remapped_rows.correctable",
    ("remapped_rows", "remapped_row_unc"): "remapped_rows.uncorrectable",
    ("remapped_rows", "remapped_row_pending"): "remapped_rows.pending",
    ("remapped_rows", "remapped_row_failure"): "remapped_rows.failure",
}
_GPU_TAG = re.compile(r"<gpu[\s>]")


def _ecc_key(path: tuple[str, ...]) -> str | None:
    """The canonical total an ECC counter adds to; None for the rest (thresholds, sources)."""
    if len(path) < 3 or path[0] != "ecc_errors" or path[1] not in ("volatile", "aggregate"):
        return None
    scope, leaf = path[1], path[-1]
    if len(path) == 4:  # old layout: volatile/single_bit/device_memory … total
        if leaf != "total":
            return None
        if path[2] == "double_bit":
            return f"ecc.errors.uncorrected.{scope}.total"
        return f"ecc.errors.corrected.{scope}.total" if path[2] == "single_bit" else None
    if "uncorrectable" in leaf:
        return f"ecc.errors.uncorrected.{scope}.total"
    if leaf.endswith("correctable"):
        return f"ecc.errors.corrected.{scope}.total"
    return None


def _walk(element: ET.Element, path: tuple[str, ...], gpu: dict[str, Value], line: int) -> None:
    for child in element:
        here = (*path, child.tag)
        if len(child):
            _walk(child, here, gpu, line)
            continue
        raw = (child.text or "").strip()
        simple = _SIMPLE.get(here)
        if simple is not None:
            gpu[simple] = convert(simple, raw, line=line)
            continue
        ecc = _ecc_key(here)
        if ecc is not None:
            add_ecc(gpu, ecc, raw, line=line)


def parse_xml(text: str) -> GpuQueryResult:
    # Entities are the one way XML makes a small file large (or reach outside it): nvidia-smi
    # never declares any.
    if "<!ENTITY" in text:
        raise GpuQueryError(
            "nvidia-smi -q -x output declares no entities; this file does", kind=KIND
        )
    try:
        root = ET.fromstring(text.strip())
    except ET.ParseError as exc:
        line = exc.position[0] if exc.position else None
        raise GpuQueryError(
            f"nvidia-smi -q -x output is not well-formed XML ({exc})", line=line, kind=KIND
        ) from exc
    if root.tag != "nvidia_smi_log":
        raise GpuQueryError(f"expected <nvidia_smi_log>, found <{root.tag}>", line=1, kind=KIND)
    driver = (root.findtext("driver_version") or "").strip() or None
    cuda = (root.findtext("cuda_version") or "").strip() or None
    lines = [text.count("\n", 0, m.start()) + 1 for m in _GPU_TAG.finditer(text)]
    gpus: list[dict[str, Value]] = []
    for position, element in enumerate(root.findall("gpu")):
        line = lines[position] if position < len(lines) else 1
        gpu: dict[str, Value] = {"index": position, "pci.bus_id": element.get("id") or None}
        _walk(element, (), gpu, line)
        gpu["driver_version"] = driver
        gpu.setdefault("cuda_version", cuda)
        gpus.append(gpu)
    if not gpus:
        raise GpuQueryError("nvidia-smi -q -x report without any <gpu> element", kind=KIND)
    return GpuQueryResult(
        gpus=tuple(gpus),
        source_format="query",
        driver_version=driver,
        cuda_version=cuda,
        gpu_lines=tuple(lines[: len(gpus)]),
    )
