"""Awarding a scenario through the API: the same rules as the page. 201 with one reservation
per (lot, provider); 409 when infeasible or already awarded; each provider reads only its own
reservations; the award is on the audit chain."""

from __future__ import annotations

from decimal import Decimal

import pytest

from acceptance.services.fixtures import fixture_from_template
from audit.models import AuditEntry
from bids.choices import RequestStatus
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from evaluation.scenario_services import scenario_solve
from tests.api.v1.conftest import token_client
from tests.evaluation.scenarios.world import define

pytestmark = pytest.mark.django_db


def _award_url(scenario) -> str:
    return f"/api/v1/requests/{scenario.request_id}/scenarios/{scenario.pk}/award/"


def _solved(req, buyer, **rules):
    fixture_from_template(capacity_request=req, user=buyer.user, template=DEFAULT_TEMPLATE)
    req.status = RequestStatus.CLOSED
    req.save(update_fields=["status"])
    scenario = define(req, buyer.user, **rules)
    return scenario_solve(scenario_id=scenario.pk, revision=scenario.revision)


def test_a_buyer_awards_a_scenario_and_each_provider_reads_its_own_reservations(
    worked, buyer, provider, rival_provider, cirrus
):
    scenario = _solved(
        worked,
        buyer,
        name="Two providers",
        max_share_pct=None,
        min_regions=None,
        excluded_providers=[cirrus.org.pk],
    )
    response = token_client(buyer.user).post(_award_url(scenario), {}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["scenario_name"] == "Two providers"
    got = sorted((r["lot"], r["provider"], r["nodes"]) for r in body["reservations"])
    assert got == [(1, "Rival Cloud", 32), (2, "Rival Cloud", 16), (3, "Northwind", 8)]
    assert AuditEntry.objects.filter(action="scenario.award").count() == 1

    mine = token_client(provider.user).get("/api/v1/reservations/").json()
    rows = mine["results"] if isinstance(mine, dict) else mine
    assert [(r["lot"], r["provider"]) for r in rows] == [(3, "Northwind")]
    rival_lot = next(r["id"] for r in body["reservations"] if r["lot"] == 1)
    assert token_client(provider.user).get(f"/api/v1/reservations/{rival_lot}/").status_code == 404
    assert token_client(cirrus.user).get(f"/api/v1/reservations/{rival_lot}/").status_code == 404

    again = token_client(buyer.user).post(_award_url(scenario), {}, format="json")
    assert again.status_code == 201 and len(again.json()["reservations"]) == 3


def test_an_infeasible_scenario_is_a_conflict(worked, buyer, rival_provider, cirrus):
    scenario = _solved(worked, buyer, max_share_pct=Decimal("60"))
    response = token_client(buyer.user).post(_award_url(scenario), {}, format="json")
    assert response.status_code == 409
    assert "infeasible" in str(response.json())


def test_a_provider_cannot_reach_the_award(worked, buyer, provider, rival_provider, cirrus):
    scenario = _solved(worked, buyer)
    response = token_client(provider.user).post(_award_url(scenario), {}, format="json")
    assert response.status_code == 404
