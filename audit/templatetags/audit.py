"""`{% audit_history "request" req.pk %}` (or `"request:12"`): the object's history panel, as
the page's acting organisation may read it."""

from __future__ import annotations

from typing import Any

from django import template

from audit.selectors import entries_for, object_key

register = template.Library()


@register.inclusion_tag("audit/_history.html", takes_context=True)
def audit_history(
    context: template.Context, kind: str, pk: Any = None, request_id: Any = None
) -> dict[str, Any]:
    """With `request_id`, the panel also links the organisation's log of everything on that
    request: a reservation's maintenance, usage, incidents and files are entries of their own."""
    key = kind if pk is None else object_key(kind, pk)
    request = context.get("request")
    org = getattr(request, "org", None)
    entries = list(entries_for(org=org, obj_key=key))
    return {"entries": entries, "obj_key": key, "request_id": request_id}


@register.filter
def audit_value(value: Any) -> str:
    """A recorded value as a person reads it: yes or no, a list joined, nothing as a dash."""
    if value is None or value == "" or value == [] or value == {}:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(audit_value(item) for item in value)
    if isinstance(value, dict):
        return ", ".join(f"{key}: {audit_value(item)}" for key, item in value.items())
    return str(value)
