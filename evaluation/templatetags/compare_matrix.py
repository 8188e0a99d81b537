"""The comparison matrix body, as printed once with its stored presentation
(`evaluation.matrix_html`)."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from evaluation.matrix import Comparison
from evaluation.matrix_html import matrix_body as printed

register = template.Library()


@register.simple_tag
def matrix_body(cmp: Comparison) -> SafeString:
    # Safe: every interpolated value went through escape() when the body was printed.
    return mark_safe(cmp.matrix_html or printed(cmp.groups, len(cmp.columns)))
