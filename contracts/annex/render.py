"""HTML (the browser preview) and PDF (WeasyPrint) from one template, `pdf/annex.html`."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.template.loader import render_to_string


def canonical_json(snapshot: dict[str, Any]) -> str:
    return json.dumps(
        snapshot, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )


def snapshot_sha256(snapshot: dict[str, Any]) -> str:
    return hashlib.sha256(canonical_json(snapshot).encode()).hexdigest()


def render_html(document: dict[str, Any], *, preview: bool = False) -> str:
    return render_to_string("pdf/annex.html", {"doc": document, "preview": preview})


def render_pdf(html: str) -> bytes:
    # Imported here: WeasyPrint loads Pango, which only the render path needs.
    from weasyprint import HTML

    return HTML(string=html, base_url=None).write_pdf()
