"""The scenarios API on the worked example: define, read back the stored answer, refusals that
name the field, nothing while sealed, and the same queries for 1 and 6 scenarios."""

from __future__ import annotations

import pytest

from evaluation.models import AwardScenario
from evaluation.scenario_services import scenario_solve
from tests.api.v1.conftest import token_client
from tests.evaluation.scenarios.world import define

pytestmark = pytest.mark.django_db


def _url(req, tail: str = "") -> str:
    return f"/api/v1/requests/{req.pk}/scenarios/{tail}"


def test_a_buyer_defines_a_scenario_and_reads_its_answer(worked, buyer, rival_provider):
    api = token_client(buyer.user)
    response = api.post(
        _url(worked),
        {"name": "Cap 75 %", "max_share_pct": "75", "min_regions": 2},
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["status"] == "queued" and body["result"] == {}
    scenario = AwardScenario.objects.get(pk=body["id"])
    scenario_solve(scenario_id=scenario.pk, revision=scenario.revision)
    read = api.get(_url(worked, f"{scenario.pk}/")).json()
    assert read["status"] == "solved"
    assert read["result"]["figures"]["cost"] == "677606.40"
    assert read["result"]["allocation"]["Cirrus Compute · Lot 2"] == 6
    solve = api.post(_url(worked, f"{scenario.pk}/solve/"))
    assert solve.status_code == 202 and solve.json()["status"] == "queued"


def test_contradicting_rules_are_refused_naming_the_field(worked, buyer, rival_provider):
    api = token_client(buyer.user)
    response = api.post(
        _url(worked),
        {
            "name": "Contradiction",
            "min_providers": 3,
            "max_providers": 2,
            "min_share": {str(rival_provider.org.pk): "10"},
            "excluded_providers": [rival_provider.org.pk],
        },
        format="json",
    )
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert "cannot meet the minimum of 3" in errors["max_providers"][0]
    assert "cannot be excluded and keep a minimum share" in errors["excluded_providers"][0]
    assert not AwardScenario.objects.exists()


def test_nothing_while_the_bids_are_sealed(worked, buyer):
    worked.sealed = True
    worked.save()
    api = token_client(buyer.user)
    assert api.get(_url(worked)).json()["results"] == []
    response = api.post(_url(worked), {"name": "Early"}, format="json")
    assert response.status_code == 400
    assert "once the bids open" in str(response.json())


def test_the_list_costs_the_same_queries_for_1_and_6_scenarios(
    worked, buyer, django_assert_max_num_queries
):
    api = token_client(buyer.user)
    define(worked, buyer.user)
    api.get(_url(worked))
    with django_assert_max_num_queries(30) as few:
        assert len(api.get(_url(worked)).json()["results"]) == 1
    for i in range(5):
        define(worked, buyer.user, name=f"Variant {i}")
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert len(api.get(_url(worked)).json()["results"]) == 6
