"""Who may reach the comparison pages: the buyer's members only; everyone else gets a 404."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

from tests import tenancy_registry
from tests.bids.test_tenancy import BUYERS_ONLY, BUYERS_POST, LOGIN, ROLES, client_for


def _scenario(world: Any) -> int:
    """A stored scenario on the world's request, made directly: reads need no solve."""
    from evaluation.models import AwardScenario

    scenario, _ = AwardScenario.objects.get_or_create(request=world.request, name="Cheapest")
    return scenario.pk


def _asked(world: Any) -> int:
    """An award of the world's bid awaiting two approvers, asked by a requester."""
    from bids.models import ApprovalRequest
    from orgs.choices import MemberRole
    from tests.factories import MembershipFactory

    requester = MembershipFactory(
        organization=world.request.buyer, role=MemberRole.REQUESTER, user__username="rhea"
    ).user
    return ApprovalRequest.objects.create(
        request=world.request, action="award", bid=world.bid, value=1, needed=2, asked_by=requester
    ).pk


ROUTES: dict[str, tuple[str, Callable[[Any], list[Any]], dict[str, Any]]] = {
    "evaluation:request-compare": ("get", lambda w: [w.request.pk], BUYERS_ONLY),
    "evaluation:request-compare-status": ("get", lambda w: [w.request.pk], BUYERS_ONLY),
    "evaluation:request-compare-rescore": ("post", lambda w: [w.request.pk], BUYERS_POST),
    "evaluation:request-compare-csv": ("get", lambda w: [w.request.pk], BUYERS_ONLY),
    "evaluation:request-compare-xlsx": ("get", lambda w: [w.request.pk], BUYERS_ONLY),
    "evaluation:request-weights": ("get", lambda w: [w.request.pk], BUYERS_ONLY),
    # The member's own weights and ratings (its posts: tests/evaluation/pages/test_team_page.py).
    "evaluation:request-team-view": ("get", lambda w: [w.request.pk], BUYERS_ONLY),
    # Award scenarios: the buyer's deliberation, never a provider's or another buyer's.
    "evaluation:request-scenarios": ("get", lambda w: [w.request.pk], BUYERS_ONLY),
    "evaluation:request-scenarios-xlsx": ("get", lambda w: [w.request.pk], BUYERS_ONLY),
    "evaluation:request-scenario-edit": (
        "get",
        lambda w: [w.request.pk, _scenario(w)],
        BUYERS_ONLY,
    ),
    "evaluation:request-scenario-solve": (
        "post",
        lambda w: [w.request.pk, _scenario(w)],
        BUYERS_POST,
    ),
    # Approvals under the buyer's policy: its own members only.
    "evaluation:approval-approve": ("post", lambda w: [_asked(w)], BUYERS_POST),
    "evaluation:approval-decline": ("post", lambda w: [_asked(w)], BUYERS_POST),
    "evaluation:approval-withdraw": ("post", lambda w: [_asked(w)], BUYERS_POST),
    # The buyer's team awards (an unsolved scenario is refused with a message and a redirect);
    # a provider or an outsider cannot find the scenario.
    "evaluation:request-scenario-award": (
        "post",
        lambda w: [w.request.pk, _scenario(w)],
        BUYERS_POST,
    ),
}
tenancy_registry.register(*ROUTES)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_route_gives_each_role_what_it_may_see(name, role, scored, request):
    method, args, expected = ROUTES[name]
    response = getattr(client_for(role, request), method)(reverse(name, args=args(scored)))
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"


def test_a_sealed_request_shows_its_buyer_no_score_and_no_export(scored, buyer):
    scored.request.sealed = True
    scored.request.save()
    client = buyer.client()
    html = client.get(
        reverse("evaluation:request-compare", args=[scored.request.pk])
    ).content.decode()
    assert "sealed" in html
    assert "Northwind" not in html and "Rival Cloud" not in html
    assert "compare-data" not in html
    status = client.get(
        reverse("evaluation:request-compare-status", args=[scored.request.pk])
    ).json()
    assert status == {"state": "sealed"}
    for name in ("evaluation:request-compare-csv", "evaluation:request-compare-xlsx"):
        assert client.get(reverse(name, args=[scored.request.pk])).status_code == 404
    rescore = client.post(reverse("evaluation:request-compare-rescore", args=[scored.request.pk]))
    assert rescore.status_code == 404


def test_another_buyers_weights_cannot_be_changed(scored, outsider):
    url = reverse("evaluation:request-weights", args=[scored.request.pk])
    response = outsider.client().post(url, {"effective_cost": "90"})
    assert response.status_code == 404
    scored.request.refresh_from_db()
    assert scored.request.weights["effective_cost"] == 40
