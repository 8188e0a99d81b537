"""The API's JSON renderers: DRF's bytes, printed by orjson where orjson prints the same.

`JSONRenderer` is DRF's, as this project configures it (compact, UTF-8 as is, no NaN), in about
half of DRF's time (a 50-row request list: orjson prints it in a tenth, the check below takes
the rest); any answer it cannot vouch for is printed by DRF.
`PrintedJSONRenderer` writes a part already printed as JSON as it is, not parsed and printed
again (the comparison's matrix is printed once per scoring run and stored with it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import Enum
from typing import Any

import orjson
from rest_framework import renderers
from rest_framework.utils.encoders import JSONEncoder
from rest_framework.utils.serializer_helpers import ReturnDict, ReturnList

# Dates and times go to DRF's encoder (it prints `Z` and milliseconds), as do dataclasses (which
# it refuses); every other type orjson does not print itself goes there too.
_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
_DICTS = (dict, ReturnDict)
_LISTS = (list, ReturnList, tuple)
_PLAIN = frozenset({str, int, bool, type(None)})


class NotLikeDRF(TypeError):
    """A value orjson would print otherwise than DRF: DRF prints the answer."""


class JSONRenderer(renderers.JSONRenderer):
    """DRF's JSON renderer, printed by orjson. Both print strings, integers, containers and
    floats from 0.0001 to 1e16 alike (floats outside that range differ: `1e-07` against
    `1e-7`); orjson prints NaN as null where DRF refuses it. So an answer holding such a float,
    an integer past 64 bits, a one-shot iterator, an enum that is neither text nor a number, or a
    dict or list of another kind (an OrderedDict keeps its own order) is printed by DRF, as is
    any answer asked for indented (the browsable API's)."""

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        if data is None or not self._as_configured(accepted_media_type, renderer_context):
            return super().render(data, accepted_media_type, renderer_context)
        encoder = self.encoder_class()
        converted: list[Any] = []

        def default(value: Any) -> Any:
            if hasattr(value, "__next__"):
                raise NotLikeDRF  # a generator: read once, by the renderer that prints it
            printable = encoder.default(value)
            converted.append(printable)  # a Decimal becomes a float: checked below
            return printable

        try:
            text = orjson.dumps(data, default=default, option=_OPTIONS)
        except orjson.JSONEncodeError:  # DRF prints it, or says what is wrong with it
            return super().render(data, accepted_media_type, renderer_context)
        # After orjson, which refuses a cycle (its depth limit): the walk always ends.
        if not prints_alike(data) or not prints_alike(converted):
            return super().render(data, accepted_media_type, renderer_context)
        # As DRF: JSON that is also JavaScript (U+2028 and U+2029 end a line there).
        return text.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")

    def _as_configured(
        self, accepted_media_type: str | None, renderer_context: Mapping[str, Any] | None
    ) -> bool:
        """Whether DRF would print compact, strict UTF-8 with its own encoder: what orjson does."""
        return (
            self.compact
            and self.strict
            and not self.ensure_ascii
            and self.encoder_class is JSONEncoder
            and self.get_indent(accepted_media_type or "", renderer_context or {}) is None
        )


def prints_alike(value: Any) -> bool:
    """Whether orjson prints `value` (already printed by it, so free of cycles) as DRF does."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind in _DICTS:
            values = item.values()
        elif kind in _LISTS:
            values = item
        elif isinstance(item, float):
            # NaN and the infinities fail both tests; 0.0 and -0.0 print alike.
            if not (item == 0 or 1e-4 <= abs(item) < 1e16):
                return False
            continue
        elif isinstance(item, dict | list | tuple | Enum) and not isinstance(item, str | int):
            return False  # text and number subclasses (choices) print as their value in both
        else:
            continue
        for inner in values:  # most are text, numbers or null: only the others go on the stack
            if type(inner) not in _PLAIN:
                stack.append(inner)
    return True


class PrintedJSON(str):
    """JSON text, printed as DRF's JSON renderer prints (`evaluation.matrix.groups_printed`)."""


class PrintedJSONRenderer(JSONRenderer):
    """The JSON renderer, except that a top-level value that is `PrintedJSON` is written as
    its text. Any other answer (errors, a list) is rendered exactly as DRF renders it."""

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        printed = (
            {k: v for k, v in data.items() if isinstance(v, PrintedJSON)}
            if isinstance(data, dict)
            else {}
        )
        if not printed:
            return super().render(data, accepted_media_type, renderer_context)
        rest = {k: v for k, v in data.items() if k not in printed}
        head = super().render(rest, accepted_media_type, renderer_context).rstrip()
        parts = [head[:-1]]  # the object without its closing brace
        for key, text in printed.items():
            separator = b"," if len(parts) > 1 or rest else b""
            parts.append(separator + json.dumps(key).encode() + b":" + text.encode())
        parts.append(b"}")
        return b"".join(parts)
