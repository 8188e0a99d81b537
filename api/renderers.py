"""An answer holding a part already printed as JSON: written as it is, not parsed and printed
again (the comparison's matrix is printed once per scoring run and stored with it)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rest_framework.renderers import JSONRenderer


class PrintedJSON(str):
    """JSON text, printed as DRF's JSON renderer prints (`evaluation.matrix.groups_printed`)."""


class PrintedJSONRenderer(JSONRenderer):
    """DRF's JSON renderer, except that a top-level value that is `PrintedJSON` is written as
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
