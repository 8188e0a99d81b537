"""A bill built from one of tests/data/billing's exports: its header and rows to edit, and the
edited rows written back as the CSV a user uploads."""

from __future__ import annotations

import csv
import io
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data" / "billing"

Rows = list[dict[str, str]]


def export_rows(name: str) -> tuple[list[str], Rows]:
    """The header and the rows of tests/data/billing/<name>."""
    with (DATA / name).open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def csv_bytes(header: list[str], rows: Rows) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()
