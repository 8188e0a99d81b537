"""The one error a file of observed records raises: it names the file, the line and the field."""

from __future__ import annotations


class ObservedInputError(ValueError):
    """A record the parsers cannot read, with where it is, so the uploader can fix that line."""

    def __init__(
        self, source: str, message: str, *, line: int | None = None, field: str | None = None
    ) -> None:
        self.source, self.line, self.field, self.detail = source, line, field, message
        where = source + (f", line {line}" if line is not None else "")
        where += f", field {field}" if field else ""
        super().__init__(f"{where}: {message}")
