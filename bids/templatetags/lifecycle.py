"""`{% moves obj as m %}`: what the signed-in user may do with a request or bid now.

`m.close.allowed` is the test; `m.close.reason` says why not, in words for the page.
"""

from __future__ import annotations

from typing import Any

from django import template

from bids.lifecycle import BID, REQUEST, bid_actor, request_actor
from bids.models import Bid, CapacityRequest
from core.lifecycle import Decision

register = template.Library()


@register.simple_tag(takes_context=True)
def moves(context: dict[str, Any], obj: CapacityRequest | Bid) -> dict[str, Decision[Any]]:
    user = context["request"].user
    if isinstance(obj, CapacityRequest):
        return REQUEST.decisions(obj, actor=request_actor(obj, user))
    return BID.decisions(obj, actor=bid_actor(obj, user))
