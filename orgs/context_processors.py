from typing import Any

from django.http import HttpRequest


def organizations(request: HttpRequest) -> dict[str, Any]:
    return {
        "active_org": getattr(request, "org", None),
        "memberships": getattr(request, "memberships", []),
    }
