"""The scenarios page: defining a scenario, a refused form that keeps what was typed and names
the field, the empty state, the sealed notice, and flat query counts."""

from __future__ import annotations

import io
from decimal import Decimal

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from audit.models import AuditEntry
from bids.services import bid_save_draft, bid_submit
from evaluation.models import AwardScenario, ScenarioStatus
from evaluation.scenario_services import scenario_solve
from tests.evaluation.scenarios.world import define

pytestmark = pytest.mark.django_db


def _url(req) -> str:
    return reverse("evaluation:request-scenarios", args=[req.pk])


def test_the_empty_page_says_how_to_start(worked, buyer):
    html = buyer.client().get(_url(worked)).content.decode()
    assert "No scenarios yet" in html and "Define a scenario" in html
    assert "Minimum share for Rival Cloud (%)" in html
    assert "Required useful GPU-hours" in html and "Required useful gpu hours" not in html


def test_a_buyer_defines_a_scenario_that_is_queued_and_audited(worked, buyer, rival_provider):
    response = buyer.client().post(
        _url(worked),
        {
            "name": "No Rival",
            "objective": "min_cost_for_required_useful",
            "share_basis": "gpus",
            "excluded_providers": [str(rival_provider.org.pk)],
        },
    )
    assert response.status_code == 302
    scenario = AwardScenario.objects.get(request=worked)
    assert scenario.excluded_providers == [rival_provider.org.pk]
    assert scenario.status == ScenarioStatus.QUEUED and scenario.created_by == buyer.user
    entry = AuditEntry.objects.get(obj_key=f"scenario:{scenario.pk}", action="scenario.create")
    assert entry.provider_org_id is None and not entry.shared


def _define_on_the_page(worked, buyer, **fields: str):
    """The scenario form posted as a buyer types it: the objective and basis every test keeps."""
    form = {"objective": "min_cost_for_required_useful", "share_basis": "gpus", **fields}
    return buyer.client().post(_url(worked), form)


def test_a_refused_form_keeps_what_was_typed_and_names_the_field(worked, buyer):
    response = _define_on_the_page(
        worked, buyer, name="Contradiction", min_providers="3", max_providers="2", budget="650000"
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "At most 2 providers cannot meet the minimum of 3." in html
    assert 'value="Contradiction"' in html and 'value="650000"' in html
    assert not AwardScenario.objects.exists()


def test_a_maximum_of_one_provider_below_the_minimum_is_worded_in_the_singular(worked, buyer):
    response = _define_on_the_page(
        worked, buyer, name="One at most", min_providers="2", max_providers="1"
    )
    assert "At most 1 provider cannot meet the minimum of 2." in response.content.decode()


def test_a_second_scenario_of_the_same_name_is_refused_on_its_name(worked, buyer):
    define(worked, buyer.user, name="Two regions")
    response = buyer.client().post(
        _url(worked),
        {"name": "two regions", "objective": "min_cost_for_required_useful", "share_basis": "gpus"},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "already has a scenario named “two regions”" in html and 'value="two regions"' in html
    assert AwardScenario.objects.filter(request=worked).count() == 1


def test_the_comparison_shows_allocation_cost_and_rule_costs(worked, buyer):
    first = define(worked, buyer.user)
    second = define(worked, buyer.user, name="Cap 60 %", max_share_pct=Decimal("60"))
    for s in (first, second):
        scenario_solve(scenario_id=s.pk, revision=s.revision)
    html = buyer.client().get(_url(worked)).content.decode()
    assert "$677,606.40" in html
    assert "Lot 2 · Cirrus Compute" in html and "48 GPUs (6 nodes)" in html
    first.refresh_from_db()
    one = {**first.result["lines"][0], "gpus": 8, "nodes": 1}
    AwardScenario.objects.filter(pk=first.pk).update(result={**first.result, "lines": [one]})
    html = buyer.client().get(_url(worked)).content.decode()
    assert "8 GPUs (1 node)" in html and "(1 nodes)" not in html
    assert "$2,073.60" in html  # what the 75 % cap costs
    assert "Infeasible" in html and "Drop any one to make it feasible" in html


def test_a_sealed_request_has_no_scenarios(worked, buyer):
    worked.sealed = True
    worked.save()
    define_refused = buyer.client().post(_url(worked), {"name": "x", "objective": "x"})
    html = buyer.client().get(_url(worked)).content.decode()
    assert "Scenarios open once the bids do" in html and "Rival Cloud" not in html
    assert define_refused.status_code in (200, 302, 400)
    assert not AwardScenario.objects.exists()


def test_another_requests_scenario_is_not_found(worked, buyer, world):
    scenario = define(worked, buyer.user)
    url = reverse("evaluation:request-scenario-edit", args=[world.request.pk, scenario.pk])
    assert buyer.client().get(url).status_code == 404


def test_the_page_costs_the_same_queries_for_1_and_6_scenarios(
    worked, buyer, django_assert_max_num_queries
):
    define(worked, buyer.user)
    client = buyer.client()
    client.get(_url(worked))
    with django_assert_max_num_queries(40) as few:
        client.get(_url(worked))
    for i in range(5):
        define(worked, buyer.user, name=f"Variant {i}")
    with django_assert_max_num_queries(len(few.captured_queries)):
        client.get(_url(worked))


def test_editing_a_scenario_requeues_it_and_records_before_and_after(worked, buyer):
    scenario = define(worked, buyer.user)
    scenario_solve(scenario_id=scenario.pk, revision=scenario.revision)
    url = reverse("evaluation:request-scenario-edit", args=[worked.pk, scenario.pk])
    page = buyer.client().get(url).content.decode()
    assert 'value="75.00"' in page and "Save and solve" in page
    response = buyer.client().post(
        url,
        {
            "name": "Cap 80 %",
            "objective": "min_cost_for_required_useful",
            "share_basis": "gpus",
            "max_share_pct": "80",
            "min_regions": "2",
        },
    )
    assert response.status_code == 302
    scenario.refresh_from_db()
    assert scenario.status == ScenarioStatus.QUEUED and scenario.result == {}
    entry = AuditEntry.objects.get(obj_key=f"scenario:{scenario.pk}", action="scenario.edit")
    assert entry.before["max_share_pct"] == "75.00" and entry.after["max_share_pct"] == "80"


def test_the_xlsx_holds_the_comparison_as_numbers(worked, buyer):
    first = define(worked, buyer.user)
    second = define(worked, buyer.user, name="Cap 60 %", max_share_pct=Decimal("60"))
    for s in (first, second):
        scenario_solve(scenario_id=s.pk, revision=s.revision)
    response = buyer.client().get(reverse("evaluation:request-scenarios-xlsx", args=[worked.pk]))
    assert response.status_code == 200
    sheet = load_workbook(io.BytesIO(response.content))["Scenarios"]
    rows = {(r[0], r[1]): r[2:] for r in sheet.iter_rows(values_only=True)}
    assert rows[("Group", "Row")] == ("Cap 75 %, two regions", "Cap 60 %")
    assert rows[("Outcome", "Cost ($)")] == (677606.4, None)
    assert rows[("GPUs awarded", "Lot 2 · Cirrus Compute")] == (48, None)
    assert rows[("Outcome", "Status")] == ("Optimal", "Infeasible")
    conflicts = rows[("Infeasible", "Conflicting rules")]
    assert conflicts[0] in ("", None) and "75" not in conflicts[1] and conflicts[1]


def test_an_answer_from_older_bids_is_marked_stale(worked, buyer, cirrus):
    scenario = define(worked, buyer.user)
    scenario_solve(scenario_id=scenario.pk, revision=scenario.revision)
    page = buyer.client().get(_url(worked)).content.decode()
    assert "the bids changed since it was solved" not in page
    bid = worked.bids.get(provider=cirrus.org)
    offers = [{"lot": 2, "price_per_gpu_hour": "2.05", "nodes": 16}]
    bid_save_draft(bid=bid, user=cirrus.user, data={"lot_offers": offers})
    bid_submit(bid=bid, user=cirrus.user)
    page = buyer.client().get(_url(worked)).content.decode()
    assert "the bids changed since it was solved" in page
