"""HTML (the browser preview) and PDF (WeasyPrint) from one template, `pdf/annex.html`."""

from __future__ import annotations

import hashlib
import json
import threading
from typing import TYPE_CHECKING, Any

from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from engine.collector import collector_paused

if TYPE_CHECKING:
    from weasyprint.text.fonts import FontConfiguration

# Per thread: Pango's font maps may not be shared between threads (the ticket PDF renders in a
# web thread, annexes in Celery workers).
_fonts = threading.local()


def canonical_json(snapshot: dict[str, Any]) -> str:
    return json.dumps(
        snapshot, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )


def snapshot_sha256(snapshot: dict[str, Any]) -> str:
    return hashlib.sha256(canonical_json(snapshot).encode()).hexdigest()


def css_string(text: str) -> str:
    """`text` as the inside of a CSS string: quotes and backslashes escaped, and `<` written as
    a CSS escape so that no request title can close the style element it is printed into."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "<" or char in "\n\r\f":
            out.append(f"\\{ord(char):X} ")
        else:
            out.append(char)
    return "".join(out)


def render_html(
    document: dict[str, Any], *, preview: bool = False, links: dict[str, str] | None = None
) -> str:
    """`links` (preview only): where the browser bar points, e.g. the PDF and the version list."""
    context = {
        "doc": document,
        "preview": preview,
        "links": links or {},
        # Printed by the page margins of every page; literal strings cost WeasyPrint less than
        # `string-set`, which it would have to track through the whole flow.
        "header_css": mark_safe(css_string(document["header"])),
        "confidentiality_css": mark_safe(css_string(document["confidentiality"])),
    }
    return render_to_string("pdf/annex.html", context)


def _font_config() -> FontConfiguration:
    """The thread's WeasyPrint font configuration, made on its first render.

    Left to itself WeasyPrint makes one per document: it reloads Fontconfig, opens every font
    again through a new Pango font map and forgets the line struts it measured. Our templates
    declare no `@font-face`, so what it holds depends only on the fonts installed, which a
    worker picks up again when it restarts.
    """
    from weasyprint.text.fonts import FontConfiguration

    config = getattr(_fonts, "config", None)
    if config is None:
        config = _fonts.config = FontConfiguration()
    return config


def render_pdf(html: str) -> bytes:
    # Imported here: WeasyPrint loads Pango, which only the render path needs.
    from weasyprint import HTML

    with collector_paused():
        return HTML(string=html, base_url=None).write_pdf(font_config=_font_config())
