"""Request parsers: DRF's, with JSON that is nested too deeply answered as a 400."""

from __future__ import annotations

from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError

from core.jsonsafe import JsonProblem, check_depth


class JSONParser(parsers.JSONParser):
    """Python's JSON reader recurses once per level: 40 KB of `[[[[...` is a RecursionError,
    which DRF does not catch, so it would surface as a 500; and a body a few hundred levels deep
    parses but breaks the validation behind it. Both are refused here (core.jsonsafe)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
            check_depth(data)
        except (RecursionError, JsonProblem):
            raise ParseError(
                "JSON parse error - the body is nested too deeply; no request here needs more "
                "than a few levels."
            ) from None
        return data
