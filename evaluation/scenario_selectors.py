"""Reads of award scenarios. Tenancy: pass a request from `request_get_for_buyer`; scenarios
are the buyer's alone, and none are shown while the bids are sealed."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from bids.models import CapacityRequest
from bids.selectors import bid_list_for_buyer
from evaluation.scenario_models import AwardScenario, ScenarioAward


def scenario_list(*, capacity_request: CapacityRequest) -> QuerySet[AwardScenario]:
    if capacity_request.bids_hidden_from_buyer:
        return AwardScenario.objects.none()
    return (
        AwardScenario.objects.filter(request=capacity_request)
        .select_related("request", "created_by")
        .order_by("created_at", "pk")
    )


def scenario_get(*, capacity_request: CapacityRequest, pk: int) -> AwardScenario:
    try:
        return scenario_list(capacity_request=capacity_request).get(pk=pk)
    except AwardScenario.DoesNotExist:
        raise Http404 from None


def scenario_bidders(*, capacity_request: CapacityRequest) -> list[tuple[int, str]]:
    """(org id, name) of each provider with a bid the buyer sees: whom rules may name."""
    seen: dict[int, str] = {}
    for bid in bid_list_for_buyer(capacity_request=capacity_request):
        seen.setdefault(bid.provider_id, bid.provider.name)
    return sorted(seen.items(), key=lambda item: item[1])


def awarded_scenario(*, capacity_request: CapacityRequest) -> ScenarioAward | None:
    """The scenario award of the request, if it was awarded by scenario (the buyer's alone)."""
    return (
        ScenarioAward.objects.filter(request=capacity_request)
        .select_related("scenario", "awarded_by")
        .first()
    )
