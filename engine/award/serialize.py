"""JSON-safe form of an award result, for a Django JSONField, a Celery result or an API.

Every `Decimal` becomes a string (money keeps its cents), tuples become lists, mappings keep
their keys, and the figures' ratio and the allocation are written out as well, since they are
properties a reader of the JSON would otherwise have to recompute.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from .model import AwardResult

JSON = None | bool | int | float | str | list["JSON"] | dict[str, "JSON"]


def _jsonable(value: Any) -> JSON:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Decimal):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | frozenset | set):
        return [_jsonable(item) for item in value]
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def result_to_dict(result: AwardResult) -> dict[str, JSON]:
    """The whole answer as JSON types, with `allocation` and `useful_per_dollar` spelt out."""
    out = _jsonable(result)
    assert isinstance(out, dict)
    out["allocation"] = dict(result.allocation)
    figures = out.get("figures")
    if isinstance(figures, dict) and result.figures is not None:
        figures["useful_per_dollar"] = str(result.figures.useful_per_dollar)
    return out
