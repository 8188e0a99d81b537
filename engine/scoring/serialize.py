"""JSON-safe form of a scoring result, for a Django JSONField or an API response.

Conventions: every Decimal becomes a string (no binary rounding of money), dates become ISO
strings, tuples become lists, and a float that is not finite (there should be none) becomes None.
"""

from __future__ import annotations

import dataclasses
import math
from datetime import date
from decimal import Decimal
from typing import Any

from .cost_model import CostBreakdown
from .ranking import ScoringResult

JSON = None | bool | int | float | str | list["JSON"] | dict[str, "JSON"]


def to_jsonable(value: Any) -> JSON:
    """Convert dataclasses, containers and scalars of this package to JSON types."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, CostBreakdown):
        out = _dataclass_dict(value)
        out["explain"] = [
            {"label": label, "formula": formula, "value": to_jsonable(v)}
            for label, formula, v in value.explain()
        ]
        return out
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _dataclass_dict(value)
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    raise TypeError(f"cannot serialise {type(value).__name__}")


def _dataclass_dict(value: Any) -> dict[str, JSON]:
    return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}


def result_to_dict(result: ScoringResult) -> dict[str, JSON]:
    """The whole result (inputs included) as plain JSON data."""
    out = _dataclass_dict(result)
    out["schema"] = "clusterbid.scoring/1"
    return out
