"""The comparison matrix body as HTML, printed in Python once per stored presentation: 200 bids
× 50 rows is 10,000 cells, which the template engine takes several times longer to loop over.
The markup is the one `evaluation/_score_matrix.html` wraps; every value is escaped here."""

from __future__ import annotations

from django.utils.html import escape

from evaluation.matrix import Cell, Group

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


def matrix_body(groups: list[Group], column_count: int) -> str:
    span = column_count + 1
    parts: list[str] = []
    for group in groups:
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
