from functools import cache
from typing import Any

from django.http import HttpRequest

from notices.selectors import unread_count


def notices(request: HttpRequest) -> dict[str, Any]:
    """The header's unread count: one COUNT query, and only on a page that shows it (the
    template calls it; a JSON view or a page without the header never does)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"unread_notices": cache(lambda: unread_count(user=user))}
