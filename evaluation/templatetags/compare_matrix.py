"""The comparison matrix in Python: its body as printed once with the stored presentation
(`evaluation.matrix_html`), its column heads per request (a large request has 200 of them, and a
template loop over them cost a fifth of the page). The links beside a provider's name belong to
higher apps, which register renderers or templates in the `provider_links` slot (core.panels).
The charts' figures as tables, printed the same way (`evaluation.charts_html`)."""

from __future__ import annotations

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from core import panels
from evaluation import charts_html
from evaluation.matrix import Column, Comparison
from evaluation.matrix_html import matrix_body as printed

register = template.Library()


@register.simple_tag
def matrix_body(cmp: Comparison) -> SafeString:
    # Safe: every interpolated value went through escape() when the body was printed.
    return mark_safe(cmp.matrix_html or printed(cmp.groups, len(cmp.columns)))


def _head(col: Column, anonymised: bool, links: list[panels.Renderer]) -> str:
    name = escape(col.name)
    bid = "" if anonymised else f' data-bid="{escape(col.label)}"'
    if col.qualified:
        standing = f'<span class="rank">#{col.rank}</span>'
    else:
        reasons = escape("; ".join(col.reasons))
        standing = f'<span class="status status-fail" title="{reasons}">disqualified</span>'
    extra = ""
    if not anonymised:
        context = {"provider_id": col.provider_id, "provider_name": col.name}
        extra = "".join(f" · {link(context)}" for link in links)
    return (
        f'<th scope="col" class="{escape(col.css)}"{bid}><span class="colname">{name}</span> '
        f'{standing} <small class="muted">rev. {col.revision_number}{extra}</small></th>'
    )


@register.simple_tag
def matrix_head(cmp: Comparison) -> SafeString:
    """One heading per bid: its name, rank or why disqualified, revision and the links higher
    apps register beside a provider's name."""
    # Safe: every interpolated value is escaped in _head (ranks and numbers are ints).
    links = panels.renderers_for("provider_links")
    return mark_safe("".join(_head(col, cmp.anonymised, links) for col in cmp.columns))


@register.simple_tag
def chart_table(cmp: Comparison, name: str) -> SafeString:
    """`{% chart_table cmp "scores" %}`: the figures of one chart as a table."""
    # Safe: every interpolated value is escaped in charts_html.
    return mark_safe(charts_html.chart_table(cmp.charts, name))
