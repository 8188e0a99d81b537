"""Writing an export as one zip: a JSON file per object kind, the stored files under `files/`,
`manifest.json` (every other entry's size and SHA-256) and `README.md` explaining the layout and
each JSON file's keys, so the archive is readable without Clusterbid."""

from __future__ import annotations

import hashlib
import json
import zipfile
from typing import IO, Any

from django.utils import timezone

from ops.export_rows import Export, as_json, field_docs
from orgs.models import Organization

CHUNK = 1024 * 1024


def write_archive(export: Export, *, org: Organization, handle: IO[bytes]) -> None:
    manifest: list[dict[str, Any]] = []
    with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, table in export.tables.items():
            data = as_json(table.rows)
            archive.writestr(f"{name}.json", data)
            manifest.append(_entry(f"{name}.json", len(data), hashlib.sha256(data).hexdigest()))
        for path, stored in sorted(export.files.items()):
            digest = hashlib.sha256()
            size = 0
            with stored.open("rb") as source, archive.open(path, "w") as target:
                while chunk := source.read(CHUNK):
                    digest.update(chunk)
                    size += len(chunk)
                    target.write(chunk)
            manifest.append(_entry(path, size, digest.hexdigest()))
        readme = readme_text(export, org=org).encode()
        archive.writestr("README.md", readme)
        manifest.append(_entry("README.md", len(readme), hashlib.sha256(readme).hexdigest()))
        archive.writestr("manifest.json", json.dumps({"files": manifest}, indent=2))


def _entry(path: str, size: int, sha256: str) -> dict[str, Any]:
    return {"path": path, "size": size, "sha256": sha256}


def readme_text(export: Export, *, org: Organization) -> str:
    lines = [
        f"# {org.name}: data exported from Clusterbid",
        "",
        f"Made {timezone.now():%Y-%m-%d %H:%M} UTC for the {org.get_kind_display().lower()} "
        f"organisation {org.name} ({org.slug}). It holds what this organisation may read in "
        "Clusterbid, and nothing of any other organisation's that it may not.",
        "",
        "## Layout",
        "",
        "- `<kind>.json`: one file per kind of object, each a JSON list of objects (rows).",
        "  Ids join the files: `request_id` in `bid_revisions.json` is an `id` in `requests.json`.",
        "- `files/<kind>/<id>/<name>`: the stored files (burn-in and pilot evidence, "
        "failed-run bundles, incident evidence, usage bills, bid attachments, annex PDFs), "
        "as uploaded or issued. A row names its file's path in the key the table below marks "
        "as a file.",
        "- `manifest.json`: `files`, every entry of this archive but itself, with its `size` in "
        "bytes and `sha256`; check it with `sha256sum`.",
        "- Times are ISO 8601 in UTC; amounts are decimal strings; ids are integers.",
        "",
        "## The JSON files",
    ]
    for name, table in export.tables.items():
        count = len(table.rows)
        rows = f"{count} row{'' if count == 1 else 's'}"
        lines += ["", f"### `{name}.json` ({rows})", "", table.about, ""]
        lines += [f"- `{key}`: {meaning}" for key, meaning in field_docs(table)]
    return "\n".join(lines) + "\n"
