"""The request page's reservation panel, or before the award, the award panel with scores."""

from __future__ import annotations

from typing import Any

from django import template

from acceptance.selectors import burnin as sel
from bids.choices import RequestStatus
from bids.models import CapacityRequest
from bids.services.award import award_blocker
from evaluation.selectors import award_rows
from orgs.models import Organization

register = template.Library()


@register.inclusion_tag("acceptance/burnin/_request_panel_body.html")
def burnin_request_panel(req: CapacityRequest, org: Organization | None) -> dict[str, Any]:
    reservation = sel.reservation_for_request(request=req, org=org)
    is_buyer = org is not None and req.buyer_id == org.pk
    context: dict[str, Any] = {"req": req, "reservation": reservation, "is_buyer": is_buyer}
    if (
        reservation is None
        and is_buyer
        and req.status in (RequestStatus.OPEN, RequestStatus.CLOSED)
    ):
        rows = award_rows(request=req)
        context.update(
            show_award=bool(rows), rows=rows, blocker=award_blocker(request=req) if rows else None
        )
    return context
