"""nccl-tests `-J/--output_file` JSON (v2.17+ writes version 2 of this document).

Shape: {"version", "args": [program, ...], "nccl_version": 22703, "config": {"minimum_bytes",
"maximum_bytes", "step_factor", "iterations", "validation", "devices": [...]}, "results": [{"size",
"count", "type", "redop", "root", "out_of_place": {"time", "alg_bw", "bus_bw", "nwrong"}, ...}],
"out_of_bounds": {"count"}, "average_bus_bandwidth": {"bandwidth"}, "errors": [...]}.
Close variants (algbw/busbw/wrong keys, a bare list of results) are accepted too.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from engine.evidence.parsers.base import NcclTestsError, number_problem
from engine.evidence.parsers.nccl_model import (
    KIND,
    NcclBandwidth,
    NcclDevice,
    NcclRow,
    NcclTestsResult,
    collective_from_program,
    infer_collective,
    version_from_code,
)


def _err(message: str) -> NcclTestsError:
    return NcclTestsError(message, kind=KIND)


def _num(value: Any) -> float | None:
    """A number, None for null/"N/A"-style values; NaN or infinity is corrupt output."""
    if isinstance(value, bool) or value is None:
        return None
    parsed: float
    if isinstance(value, int | float):
        parsed = float(value) if isinstance(value, float) or abs(value) < 1 << 1023 else math.inf
    elif isinstance(value, str):
        try:
            parsed = float(value)
        except ValueError:
            return None
    else:
        return None
    if not math.isfinite(parsed):
        raise _err(f"expected a finite number in nccl-tests JSON, found {value!r}")
    return parsed


def _int(value: Any, what: str) -> int:
    number = _num(value)
    if number is None or number != int(number):
        raise _err(f"expected an integer {what} in nccl-tests JSON, found {value!r}")
    return int(number)


def _opt_int(value: Any) -> int | None:
    number = _num(value)
    return None if number is None else int(number)


def _side(obj: Any) -> NcclBandwidth | None:
    if not isinstance(obj, Mapping):
        return None
    time_us = _num(obj.get("time", obj.get("cpu_time", obj.get("time_us"))))
    wrong_raw = obj.get("nwrong", obj.get("wrong"))
    wrong = _num(wrong_raw)
    return NcclBandwidth(
        time_us=time_us,
        algbw=_num(obj.get("alg_bw", obj.get("algbw"))),
        busbw=_num(obj.get("bus_bw", obj.get("busbw"))),
        wrong=None if wrong is None else int(wrong),
    )


def _row(obj: Any, index: int) -> NcclRow:
    if not isinstance(obj, Mapping):
        raise _err(f"results[{index}] is not an object")
    try:
        root_raw = obj.get("root", -1)
        root = int(str(root_raw).strip()) if root_raw is not None else -1
    except ValueError:
        raise _err(f"results[{index}].root is not an integer: {obj.get('root')!r}") from None
    return NcclRow(
        size=_int(obj.get("size"), f"results[{index}].size"),
        count=_int(obj.get("count", 0), f"results[{index}].count"),
        type=str(obj.get("type", "")),
        redop=str(obj.get("redop", "none")),
        root=root,
        out_of_place=_named_side(obj, "out_of_place", index),
        in_place=_named_side(obj, "in_place", index),
        line=None,
    )


def _named_side(obj: Mapping[str, Any], key: str, index: int) -> NcclBandwidth | None:
    """A bad value (nccl-tests writes NaN as "nan") is named by its result and side."""
    try:
        return _side(obj.get(key))
    except NcclTestsError as exc:
        size = obj.get("size")
        raise _err(f"results[{index}] (size {size}) {key}: {exc.message}") from None


def _device(obj: Any) -> NcclDevice | None:
    if not isinstance(obj, Mapping):
        return None
    rank = _opt_int(obj.get("rank"))
    if rank is None:
        return None
    return NcclDevice(
        rank=rank,
        host=str(obj.get("hostname", obj.get("host", ""))),
        device=_opt_int(obj.get("device")) or 0,
        name=str(obj.get("device_info", obj.get("name", ""))),
        pid=_opt_int(obj.get("pid")),
        bus_id=obj.get("device_hex", obj.get("bus_id")),
        group=_opt_int(obj.get("group")),
    )


def _load(text: str) -> dict[str, Any]:
    """The document as an object with a "results" list (a bare list is that list)."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NcclTestsError(
            f"invalid nccl-tests JSON: {exc.msg} (column {exc.colno})", line=exc.lineno, kind=KIND
        ) from None
    except RecursionError:
        raise _err("nccl-tests JSON nests too deeply") from None
    except ValueError as exc:  # an integer literal past int()'s digit limit
        raise _err(f"unreadable nccl-tests JSON: {number_problem(exc)}") from None
    if isinstance(doc, list):
        doc = {"results": doc}
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise _err('nccl-tests JSON must be an object with a "results" list')
    return doc


def _devices(doc: Mapping[str, Any], config: Mapping[str, Any]) -> tuple[NcclDevice, ...]:
    raw_devices = config.get("devices", doc.get("devices", []))
    devices_list = list(map(_device, raw_devices if isinstance(raw_devices, list) else []))
    return tuple(sorted((d for d in devices_list if d), key=lambda d: d.rank))


def _collective(doc: Mapping[str, Any], rows: tuple[NcclRow, ...], ranks: int | None) -> str | None:
    """From the program in `args`, else a result's experiment name, else the data columns."""
    args = doc.get("args")
    program = str(args[0]) if isinstance(args, list) and args else ""
    collective = collective_from_program(program)
    if collective is None:
        for obj in doc["results"]:
            if isinstance(obj, Mapping) and obj.get("experiment_name"):
                collective = collective_from_program(str(obj["experiment_name"]))
                break
    return collective or infer_collective(rows, ranks)


def _nccl_version(doc: Mapping[str, Any]) -> str | None:
    version = doc.get("nccl_version")
    if isinstance(version, int) and not isinstance(version, bool):
        return version_from_code(version)
    return str(version) if isinstance(version, str) and version else None


def parse_json(text: str) -> NcclTestsResult:
    doc = _load(text)
    config = doc.get("config") if isinstance(doc.get("config"), dict) else {}
    assert isinstance(config, dict)
    rows = tuple(_row(obj, i) for i, obj in enumerate(doc["results"]))
    devices = _devices(doc, config)
    ranks = len(devices) if devices else None
    oob = doc.get("out_of_bounds")
    bitwise = doc.get("bitwise_mismatches")
    avg = doc.get("average_bus_bandwidth")
    errors_raw = doc.get("errors")
    errors = tuple(str(e) for e in errors_raw) if isinstance(errors_raw, list) else ()
    return NcclTestsResult(
        collective=_collective(doc, rows, ranks),
        ranks=ranks,
        rows=rows,
        out_of_bounds=_opt_int(oob.get("count")) if isinstance(oob, Mapping) else _opt_int(oob),
        avg_busbw=_num(avg.get("bandwidth")) if isinstance(avg, Mapping) else _num(avg),
        nccl_version=_nccl_version(doc),
        devices=devices,
        errors=errors,
        min_bytes=_opt_int(config.get("minimum_bytes")),
        max_bytes=_opt_int(config.get("maximum_bytes")),
        step_factor=_opt_int(config.get("step_factor")),
        iters=_opt_int(config.get("iterations")),
        warmup_iters=_opt_int(config.get("warmup_iters")),
        validation=_opt_int(config.get("validation")),
        datatype=rows[0].type if rows else None,
        nodes=tuple(dict.fromkeys(d.host for d in devices)),
        error_column="wrong",
        complete=isinstance(avg, Mapping | int | float),
        source_format="json",
        bitwise_mismatches=_opt_int(bitwise.get("count")) if isinstance(bitwise, Mapping) else None,
    )
