"""`{% load fields %}{% field_block field %}`: what `bids/_field.html` prints, built in Python.

For forms of many small fields (the comparison page's team ratings: two fields per bid and
criterion, 2,000 at 200 bids) where an include per field was most of the page's time. The
output is the include's, byte for byte (tests/core/test_field_block.py renders both).
"""

from __future__ import annotations

from django import forms, template
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.simple_tag
def field_block(field: forms.BoundField) -> SafeString:
    errors = field.errors
    classes = "field" + (" has-error" if errors else "")
    if getattr(field.field.widget, "input_type", None) == "checkbox":
        classes += " checkbox"
    needed = field.field.required or getattr(field.field, "needed_to_submit", False)
    star = ' <span class="req" aria-hidden="true">*</span>' if needed else ""
    parts = [
        f'<div class="{classes}">\n  ',
        format_html('<label for="{}">{}', field.id_for_label, field.label),
        star,
        "</label>\n  ",
        conditional_escape(field.as_widget()),
        "\n  ",
    ]
    if field.help_text:
        parts.append(
            format_html(
                '<small class="help" id="{}_helptext">{}</small>', field.auto_id, field.help_text
            )
        )
    parts.append("\n  \n  ")
    if errors:
        joined = mark_safe("<br>".join(conditional_escape(str(e)) for e in errors))  # escaped
        parts.append(format_html('<p class="error" id="{}_error">{}</p>', field.auto_id, joined))
    parts.append("\n</div>\n")
    return mark_safe("".join(parts))  # every piece above is escaped or our own markup
