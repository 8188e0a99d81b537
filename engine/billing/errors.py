"""The one error a usage file raises: which line, which column, what was wrong."""

from __future__ import annotations


class UsageError(ValueError):
    """A usage or invoice file that cannot be read as mapped. `line` counts the header as 1."""

    def __init__(
        self, message: str, *, line: int | None = None, column: str = "", cell: str = ""
    ) -> None:
        self.line = line
        self.column = column
        self.cell = cell  # a workbook's cell, e.g. "sheet 'Usage', cell D7"; "" for a CSV
        self.reason = message
        where = []
        if cell:
            where.append(cell)
        elif line is not None:
            where.append(f"line {line}")
        if column:
            where.append(f"column '{column}'")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)
