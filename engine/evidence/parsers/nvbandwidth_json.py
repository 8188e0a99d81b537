"""`nvbandwidth -j`: the same testcases as one JSON document.

    {"nvbandwidth": {"version": "v0.8", "Driver Version": "570.124.06",
      "CUDA Runtime Version": 12080, "GPU Device list": ["0: NVIDIA H100 ... (host)", ...],
      "testcases": [{"name": "host_to_device_memcpy_ce", "status": "Passed",
                     "bandwidth_description": "memcpy CE CPU(row) -> GPU(column) ...",
                     "bandwidth_matrix": [["55.21", "55.19", ...]], "sum": 441.62}, ...]}}

Cells are strings ("N/A" on the diagonal). A testcase that prints several matrices in text
(Read1, Read2, Total) appends all their rows to one `bandwidth_matrix` in JSON and keeps the last
description and sum, so such a testcase is read as one matrix of its stacked rows.
A JSON document has no line numbers: errors name the testcase instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from engine.evidence.parsers.base import NvbandwidthError, number_problem, parse_number
from engine.evidence.parsers.nvbandwidth import KIND, Matrix, NvbandwidthResult
from engine.formatting import is_finite_number

_UNIT_RE = re.compile(r"\((GB/s|ns)\)\s*$")


def _load(text: str) -> Mapping[str, Any]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NvbandwidthError(
            f"JSON cannot be read: {exc.msg} (file cut short?)", line=exc.lineno, kind=KIND
        ) from None
    except RecursionError:
        raise NvbandwidthError("JSON nested too deeply to be nvbandwidth -j", kind=KIND) from None
    except ValueError as exc:  # an integer literal past int()'s digit limit
        raise NvbandwidthError(f"JSON cannot be read: {number_problem(exc)}", kind=KIND) from None
    body = doc.get("nvbandwidth") if isinstance(doc, dict) else None
    if not isinstance(body, dict):
        raise NvbandwidthError(
            'JSON without an "nvbandwidth" object: not nvbandwidth -j output', kind=KIND
        )
    return body


def _cell(value: Any, where: str) -> float | None:
    if value == "N/A" or value is None:
        return None
    number = parse_number(str(value)) if len(str(value)) < 40 else None
    if number is None or isinstance(value, bool) or number < 0:
        raise NvbandwidthError(f"{where} reads {str(value)[:30]!r}, not a measurement", kind=KIND)
    return float(number)


def _matrix(case: Mapping[str, Any], name: str) -> Matrix:
    rows = case.get("bandwidth_matrix")
    if not isinstance(rows, list) or not rows or not all(isinstance(r, list) for r in rows):
        raise NvbandwidthError(f"{name}: passed without a bandwidth_matrix", kind=KIND)
    width = len(rows[0])
    values = []
    for i, row in enumerate(rows):
        if len(row) != width:
            raise NvbandwidthError(
                f"{name}: matrix row {i} has {len(row)} values for {width} columns", kind=KIND
            )
        values.append(tuple(_cell(v, f"{name} row {i}") for v in row))
    description = str(case.get("bandwidth_description") or "")
    unit = m.group(1) if (m := _UNIT_RE.search(description)) else "GB/s"
    total = case.get("sum")
    return Matrix(
        testcase=name,
        description=description,
        unit=unit,
        columns=tuple(str(c) for c in range(width)),
        rows=tuple(str(r) for r in range(len(rows))),
        values=tuple(values),
        key=name,
        total=float(total) if is_finite_number(total) and total >= 0 else None,
    )


def _case(case: Any, index: int) -> tuple[Matrix | None, str | None]:
    if not isinstance(case, dict) or not isinstance(case.get("name"), str):
        raise NvbandwidthError(f"testcase {index} has no name", kind=KIND)
    name, status = case["name"], str(case.get("status", ""))
    if status == "Passed":
        return _matrix(case, name), None
    if status in ("Waived", "Running"):
        return None, None
    return None, f"{name}: {case.get('error') or status or 'no status'}"


def parse_json(text: str) -> NvbandwidthResult:
    body = _load(text)
    cases = body.get("testcases")
    if cases is not None and not isinstance(cases, list):
        raise NvbandwidthError('"testcases" is not a list', kind=KIND)
    matrices: list[Matrix] = []
    errors: list[str] = [str(body["error"])] if body.get("error") else []
    waived = 0
    for index, case in enumerate(cases or []):
        matrix, error = _case(case, index)
        if matrix is not None:
            matrices.append(matrix)
        elif error is not None:
            errors.append(error)
        else:
            waived += case.get("status") == "Waived"
    if not matrices and not errors:
        raise NvbandwidthError("nvbandwidth -j output without any testcase result", kind=KIND)
    devices = body.get("GPU Device list")
    return NvbandwidthResult(
        matrices=tuple(matrices),
        version=str(body["version"]) if body.get("version") else None,
        driver_version=str(body["Driver Version"]) if body.get("Driver Version") else None,
        cuda_runtime_version=str(body.get("CUDA Runtime Version") or "") or None,
        devices=tuple(str(d) for d in devices) if isinstance(devices, list) else (),
        waived=waived,
        errors=tuple(errors),
        json_output=True,
    )
