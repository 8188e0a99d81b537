"""Form widgets that render in Python what Django's widget templates render.

A form of many small fields (the comparison page's team ratings: a select and a comment per
bid and criterion) spent most of the page's time in the template engine, an include per option.
These print the same HTML as Django's templates (tests/core/test_widgets.py renders both).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe


def _attrs(attrs: dict[str, Any]) -> str:
    """django/forms/widgets/attrs.html: True prints the bare name, False nothing."""
    out = []
    for name, value in attrs.items():
        if value is False:
            continue
        if value is True:
            out.append(f" {conditional_escape(name)}")
        else:
            out.append(format_html(' {}="{}"', name, str(value)))
    return "".join(out)


class PlainSelect(forms.Select):
    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None
    ) -> SafeString:
        widget = self.get_context(name, value, attrs)["widget"]
        parts = [format_html('<select name="{}"', widget["name"]), _attrs(widget["attrs"]), ">"]
        for group_name, group_choices, _ in widget["optgroups"]:
            if group_name:
                parts.append(format_html('\n  <optgroup label="{}">', group_name))
            for option in group_choices:
                parts.append(format_html('\n  <option value="{}"', str(option["value"])))
                parts.append(_attrs(option["attrs"]))
                # The option template ends with a newline, and the include prints it.
                parts.append(format_html(">{}</option>\n", option["label"]))
            if group_name:
                parts.append("\n  </optgroup>")
        parts.append("\n</select>")
        return mark_safe("".join(parts))  # every piece above is escaped


class PlainTextarea(forms.Textarea):
    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None
    ) -> SafeString:
        widget = self.get_context(name, value, attrs)["widget"]
        text = conditional_escape(widget["value"]) if widget["value"] else ""
        return mark_safe(
            format_html('<textarea name="{}"', widget["name"])
            + _attrs(widget["attrs"])
            + f">\n{text}</textarea>"
        )
