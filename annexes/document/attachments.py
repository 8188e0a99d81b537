"""The awarded revision's files in the annex: what each is, and the SHA-256 that proves it.

The checksums print as `sha256sum` lines, so either party can check its copies with
`sha256sum -c`; the snapshot carries them only when the revision had files (older annexes keep
their checksum)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.filetypes import KIND_NAMES
from engine.formatting import data_size_exact

Block = dict[str, Any]


def attachment_blocks(snap: Mapping[str, Any]) -> list[Block]:
    files = (snap.get("bid_revision") or {}).get("attachments") or []
    if not files:
        return []
    table: Block = {
        "type": "table",
        "heading": f"Files attached to the offer ({len(files)})",
        "head": ["#", "File", "Kind", "Size", "Description"],
        "rows": [
            [
                i,
                f["name"],
                KIND_NAMES.get(f.get("content_type", ""), "—"),
                data_size_exact(f["size"]),
                f.get("description") or "—",
            ]
            for i, f in enumerate(files, start=1)
        ],
    }
    checksums: Block = {
        "type": "code",
        "heading": "SHA-256 of each file (sha256sum format)",
        "text": "\n".join(f"{f['sha256']}  {f['name']}" for f in files),
    }
    return [table, checksums]
