"""Render the comparison matrix body in Python: 200 bids × 50 rows is 10,000 cells, which the
template engine takes several times longer to loop over. The markup is the one the
`evaluation/_score_matrix.html` template wraps; every value is escaped here."""

from __future__ import annotations

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from core.kept import kept
from evaluation.comparison import PRESENTATION_SECONDS, Cell, Comparison

register = template.Library()

_DEFAULT_TAG = ' <span class="tag">default</span>'


def _cell(cell: Cell) -> str:
    attrs = f' class="{cell.css}"' if cell.css else ""
    text = escape(cell.display)
    if not cell.explain:
        return f"<td{attrs}>{text}</td>"
    tag = _DEFAULT_TAG if cell.note == "default" else ""
    if cell.note.startswith("realised"):
        tag = f' <span class="tag" title="{escape(cell.note)}">realised</span>'
    steps = "".join(
        f"<dt>{escape(e['label'])}{' = ' + escape(e['value']) if e['value'] else ''}</dt>"
        f"<dd>{escape(e['formula'])}</dd>"
        for e in cell.explain
    )
    return (
        f'<td{attrs}><details><summary>{text}{tag}</summary><dl class="explain">{steps}</dl>'
        "</details></td>"
    )


@register.simple_tag
def matrix_body(cmp: Comparison) -> SafeString:
    """The body, kept beside the cached presentation it prints (it depends on nothing else):
    with many bids its cells are a large share of the page's work."""
    if cmp.presentation_key:
        key = f"{cmp.presentation_key}:matrix-body"
        body = kept(key, lambda: _body(cmp), seconds=PRESENTATION_SECONDS, weight=len(cmp.columns))
    else:
        body = _body(cmp)
    # Safe: every interpolated value went through escape() in _body.
    return mark_safe(body)


def _body(cmp: Comparison) -> str:
    span = len(cmp.columns) + 1
    parts: list[str] = []
    for group in cmp.groups:
        parts.append(
            f'<tbody><tr class="group"><th scope="rowgroup" colspan="{span}">'
            f"{escape(group.title)}</th></tr>"
        )
        for row in group.rows:
            unit = f' <small class="muted">({escape(row.unit)})</small>' if row.unit else ""
            cells = "".join(_cell(c) for c in row.cells)
            parts.append(
                f'<tr data-row="{escape(row.key)}"><th scope="row" class="rowhead">'
                f"{escape(row.label)}{unit}</th>{cells}</tr>"
            )
        parts.append("</tbody>")
    return "".join(parts)
