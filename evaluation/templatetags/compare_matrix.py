"""The comparison matrix in Python: its body as printed once with the stored presentation
(`evaluation.matrix_html`), its column heads per request (they link to pages, and a large
request has 200 of them, which the template engine took a fifth of the page to loop over)."""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from evaluation.matrix import Column, Comparison
from evaluation.matrix_html import matrix_body as printed

register = template.Library()


@register.simple_tag
def matrix_body(cmp: Comparison) -> SafeString:
    # Safe: every interpolated value went through escape() when the body was printed.
    return mark_safe(cmp.matrix_html or printed(cmp.groups, len(cmp.columns)))


def _head(col: Column, anonymised: bool) -> str:
    name = escape(col.name)
    bid = "" if anonymised else f' data-bid="{escape(col.label)}"'
    if col.qualified:
        standing = f'<span class="rank">#{col.rank}</span>'
    else:
        reasons = escape("; ".join(col.reasons))
        standing = f'<span class="status status-fail" title="{reasons}">disqualified</span>'
    link = ""
    if not anonymised:
        url = escape(reverse("scorecards:provider-scorecard", args=[col.provider_id]))
        link = f' · <a href="{url}" title="How {name}\'s reservations went">scorecard</a>'
    return (
        f'<th scope="col" class="{escape(col.css)}"{bid}><span class="colname">{name}</span> '
        f'{standing} <small class="muted">rev. {col.revision_number}{link}</small></th>'
    )


@register.simple_tag
def matrix_head(cmp: Comparison) -> SafeString:
    """One heading per bid: its name, rank or why disqualified, revision and scorecard."""
    # Safe: every interpolated value is escaped in _head (ranks and numbers are ints).
    return mark_safe("".join(_head(col, cmp.anonymised) for col in cmp.columns))
