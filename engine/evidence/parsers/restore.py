"""Rebuild a parse result from its stored JSON, so a file is parsed once, not on every re-check.

`to_json` flattens the frozen result dataclasses to JSON types; `from_json` walks the same
type hints back (lists to tuples, string keys to ints, nested dataclasses). The converters are
compiled once per class. `FORMAT` names the shape of every result type: a stored result written
under another shape (a parser whose fields changed since) is not trusted, and the caller parses
the stored bytes again; a file refused under another `FORMAT` is read again too (a new parser
may read it). Raise `PARSER_REVISION` when a parser reads the same bytes differently without
changing its fields.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import types
import typing
from collections.abc import Callable
from typing import Any

from engine.collector import collector_paused
from engine.evidence.parsers.dcgmi_diag import DcgmiResult
from engine.evidence.parsers.fixture_result import FixtureResult
from engine.evidence.parsers.ibqueryerrors import IbqueryerrorsResult
from engine.evidence.parsers.ibstat import IbstatResult
from engine.evidence.parsers.nccl_model import NcclTestsResult
from engine.evidence.parsers.nvbandwidth import NvbandwidthResult
from engine.evidence.parsers.nvidia_smi_dmon import DmonResult
from engine.evidence.parsers.nvidia_smi_query import GpuQueryResult
from engine.evidence.parsers.nvidia_smi_topo import TopoResult
from engine.evidence.parsers.perfquery import PerfqueryResult
from engine.evidence.parsers.perftest import PerftestResult
from engine.evidence.parsers.step_times import StepTimesResult

PARSER_REVISION = 4

RESULT_TYPES: dict[str, type] = {
    cls.KIND: cls
    for cls in (
        NcclTestsResult,
        TopoResult,
        GpuQueryResult,
        DcgmiResult,
        IbstatResult,
        StepTimesResult,
        FixtureResult,
        PerfqueryResult,
        IbqueryerrorsResult,
        NvbandwidthResult,
        PerftestResult,
        DmonResult,
    )
}

Convert = Callable[[Any], Any]


class StoredResultError(ValueError):
    """The stored JSON does not fit the result type (the caller parses the bytes again)."""


def _identity(value: Any) -> Any:
    return value


def _to_float(value: Any) -> Any:
    # JSON has no NaN: `to_json` wrote a non-finite float as null.
    return math.nan if value is None else float(value)


_CONVERTERS: dict[Any, Convert] = {}
# Fields read back as JSON wrote them. A float field is not among them: a non-finite number was
# written as null and must come back as NaN.
_SCALARS = (int, str, bool, int | None, str | None, bool | None)


def _converter(tp: Any) -> Convert:
    found = _CONVERTERS.get(tp)
    if found is None:
        found = _CONVERTERS[tp] = _build(tp)
    return found


def _build(tp: Any) -> Convert:
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return _dataclass_converter(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is float:
        return _to_float
    if tp in (int, str, bool, type(None), Any):
        return _identity
    if origin in (types.UnionType, typing.Union):
        real = [a for a in args if a is not type(None)]
        if all(a in (int, float, str, bool) for a in real):
            return _identity  # a union of scalars reads back as written
        if len(real) != 1:
            raise TypeError(f"cannot restore the union {tp!r}")
        inner = _converter(real[0])
        return lambda v: None if v is None else inner(v)
    if origin is tuple:
        inner = _converter(args[0]) if args else _identity
        if inner is _identity:
            return tuple
        return lambda v: tuple([inner(x) for x in v])
    if origin is list:
        inner = _converter(args[0]) if args else _identity
        return list if inner is _identity else (lambda v: [inner(x) for x in v])
    if origin is dict:
        key = int if args and args[0] is int else _identity
        value = _converter(args[1]) if args else _identity
        if key is _identity and value is _identity:
            return dict
        return lambda v: {key(k): value(x) for k, x in v.items()}
    raise TypeError(f"cannot restore a field of type {tp!r}")


def _dataclass_converter(cls: type) -> Convert:
    """One function per class that calls it with each field converted inline (a step-time file
    holds thousands of rank rows: a generic loop over the fields cost 4× more)."""
    hints = typing.get_type_hints(cls)
    env: dict[str, Any] = {"cls": cls, "_float": _to_float}
    args: list[str] = []
    for field in dataclasses.fields(cls):
        if not field.init:
            continue
        name = field.name
        read = f"v[{name!r}]"
        if field.metadata.get("json") is False:
            read = f"v.get({name!r})"  # written beside the body only where it was set
        conv = f"c_{name}"
        env[conv] = _Deferred(hints[name])
        if hints[name] in _SCALARS:
            args.append(f"{name}={read}")
        elif hints[name] is float:
            args.append(f"{name}=_float({read})")
        else:
            args.append(f"{name}={conv}({read})")
    source = f"def convert(v):\n    return cls({', '.join(args)})\n"
    exec(source, env)  # generated from the class's own fields, as dataclasses does
    convert: Convert = env["convert"]
    _CONVERTERS[cls] = convert
    return convert


class _Deferred:
    """A field's converter, built on first use: a result may nest its own type (nccl `runs`)."""

    __slots__ = ("fn", "tp")

    def __init__(self, tp: Any) -> None:
        self.tp = tp
        self.fn: Convert | None = None

    def __call__(self, value: Any) -> Any:
        fn = self.fn
        if fn is None:
            fn = self.fn = _converter(self.tp)
        return fn(value)


def _shape(cls: type, seen: set[type]) -> list[str]:
    if cls in seen:
        return []
    seen.add(cls)
    hints = typing.get_type_hints(cls)
    out = [cls.__qualname__]
    for field in dataclasses.fields(cls):
        out.append(f"{field.name}:{hints[field.name]!r}")
        for arg in _nested(hints[field.name]):
            out.extend(_shape(arg, seen))
    return out


def _nested(tp: Any) -> list[type]:
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return [tp]
    return [c for a in typing.get_args(tp) for c in _nested(a)]


def _format() -> str:
    seen: set[type] = set()
    shape = [line for cls in RESULT_TYPES.values() for line in _shape(cls, seen)]
    digest = hashlib.sha256("\n".join(shape).encode()).hexdigest()[:12]
    return f"{PARSER_REVISION}:{digest}"


FORMAT = _format()


def from_json(data: Any) -> Any:
    """The result `to_json` wrote. Raises StoredResultError when it does not fit."""
    if not isinstance(data, dict):
        raise StoredResultError("the stored result is not an object")
    cls = RESULT_TYPES.get(data.get("kind"))  # type: ignore[arg-type]
    if cls is None:
        raise StoredResultError(f"no result type for kind {data.get('kind')!r}")
    try:
        with collector_paused():
            return _converter(cls)(data)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        kind = data["kind"]
        raise StoredResultError(f"the stored {kind} result does not fit: {exc}") from exc
