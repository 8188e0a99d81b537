"""A real Celery worker solves the scenario defined on the page; the page then shows the
worked example's allocation and cost (docs/award-optimisation.md)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evaluation.models import AwardScenario, ScenarioStatus
from tests.worker_fixtures import wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_worker_solves_the_scenario_and_the_page_shows_the_award(real_worker, worked, buyer):
    client = buyer.client()
    url = reverse("evaluation:request-scenarios", args=[worked.pk])
    response = client.post(
        url,
        {
            "name": "Cap 75 %, two regions",
            "objective": "min_cost_for_required_useful",
            "share_basis": "gpus",
            "max_share_pct": "75",
            "min_regions": "2",
        },
    )
    assert response.status_code == 302
    scenario = AwardScenario.objects.get(request=worked)
    assert 'http-equiv="refresh"' in client.get(url).content.decode() or scenario.finished

    def done() -> bool:
        scenario.refresh_from_db()
        return scenario.finished

    assert wait_for(done, seconds=90), "the worker did not solve the scenario"
    assert scenario.status == ScenarioStatus.SOLVED, scenario.error
    assert scenario.solved_at is not None
    html = client.get(url).content.decode()
    assert 'http-equiv="refresh"' not in html
    assert "Optimal" in html and "$677,606.40" in html
    for row, cell in [
        ("Lot 1 · Rival Cloud", "256 GPUs (32 nodes)"),
        ("Lot 2 · Rival Cloud", "80 GPUs (10 nodes)"),
        ("Lot 2 · Cirrus Compute", "48 GPUs (6 nodes)"),
        ("Lot 3 · Northwind", "64 GPUs (8 nodes)"),
    ]:
        start = html.index(row)
        assert cell in html[start : html.index("</tr>", start)]
    assert "Lot 1 · Northwind" not in html


def test_a_scenario_the_engine_refuses_fails_visibly_and_retry_solves_it(
    real_worker, worked, buyer
):
    client = buyer.client()
    # A row written past the form's checks: the engine's own refusal must reach the page.
    scenario = AwardScenario.objects.create(request=worked, name="Zero budget", budget=0)
    solve = reverse("evaluation:request-scenario-solve", args=[worked.pk, scenario.pk])
    page = reverse("evaluation:request-scenarios", args=[worked.pk])
    assert client.post(solve).status_code == 302

    def done() -> bool:
        scenario.refresh_from_db()
        return scenario.finished

    assert wait_for(done, seconds=90)
    assert scenario.status == ScenarioStatus.FAILED
    html = client.get(page).content.decode()
    assert "The scenario cannot be solved: budget: must be positive" in html
    assert ">Retry</button>" in html
    AwardScenario.objects.filter(pk=scenario.pk).update(budget=None)
    assert client.post(solve).status_code == 302
    assert wait_for(done, seconds=90)
    assert scenario.status == ScenarioStatus.SOLVED, scenario.error
    assert "$675,532.80" in client.get(page).content.decode()  # no rules: the cheapest split
