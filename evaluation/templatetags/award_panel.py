"""The request page's reservation panel, or before the award, the award panel with scores."""

from __future__ import annotations

from typing import Any

from django import template

from acceptance.selectors import burnin as sel
from acceptance.services.award import MIN_JUSTIFICATION
from bids.choices import RequestStatus
from bids.lifecycle import REQUEST, request_actor
from bids.models import CapacityRequest
from core.web import kept_input
from evaluation.models import AwardBasis
from evaluation.scenario_models import ScenarioAward
from evaluation.selectors import award_rows
from evaluation.team.selectors import scored_from_award_rows, team_evaluation
from orgs.models import Organization

register = template.Library()


@register.inclusion_tag("evaluation/_award_panel_body.html", takes_context=True)
def burnin_request_panel(
    context: dict[str, Any], req: CapacityRequest, org: Organization | None
) -> dict[str, Any]:
    user = context["request"].user
    reservations = sel.reservations_for_request(capacity_request=req, org=org)
    is_buyer = org is not None and req.buyer_id == org.pk
    panel: dict[str, Any] = {
        "req": req,
        "reservations": reservations,
        "reservation": reservations[0] if len(reservations) == 1 else None,
        "is_buyer": is_buyer,
    }
    if reservations and is_buyer:
        # Which ranking the award followed: the buyer's alone (it names evaluators).
        panel["award_basis"] = AwardBasis.objects.filter(request=req).first()
        panel["scenario_award"] = ScenarioAward.objects.filter(request=req).first()
    if not reservations and is_buyer and req.status in (RequestStatus.OPEN, RequestStatus.CLOSED):
        rows = award_rows(capacity_request=req)
        award = REQUEST.decide(req, "award", actor=request_actor(req, user))
        kept = kept_input(context["request"], key=f"award:{req.pk}")
        panel.update(
            kept_bid=int(kept["bid"]) if kept.get("bid", "").isdigit() else None,
            kept_justification=kept.get("justification", ""),
            kept_view=kept.get("view", ""),
            show_award=bool(rows),
            rows=rows,
            scored=any(row.scored for row in rows),
            blocker=None if award.allowed else award.reason,
            min_justification=MIN_JUSTIFICATION,
            award_views=team_evaluation(
                capacity_request=req, bids=scored_from_award_rows(rows)
            ).views,
        )
    return panel
