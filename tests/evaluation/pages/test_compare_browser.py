"""In Chromium: the buyer re-weights, watches re-scoring, sees the new ranking and charts, and
downloads an XLSX that holds the page's numbers."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from openpyxl import load_workbook

from bids.models import CapacityRequest
from bids.services import bid_submit
from evaluation.services import request_score
from evaluation.tasks import score_request
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def contest(buyer, provider, rival_provider) -> CapacityRequest:
    """A cheap bid with no spares against a dearer one that repairs fast: weights decide."""
    req = CapacityRequestFactory(buyer=buyer.org, sealed=False)
    for role in (provider, rival_provider):
        InvitationFactory(request=req, provider=role.org)
    cheap = BidFactory(request=req, provider=provider.org, price_per_gpu_hour=Decimal("2.05"))
    premium = BidFactory(
        request=req,
        provider=rival_provider.org,
        price_per_gpu_hour=Decimal("2.60"),
        spares_count=2,
        spares_location="same_fabric_domain",
        coverage="24x7",
        node_replacement_hours=Decimal("4"),
        health_checks_auto_drain=True,
        topology_aware=True,
        gang_scheduling=True,
        uptime_pct=Decimal("99.9"),
        declared_node_mtbf_hours=8000,
    )
    bid_submit(bid=cheap, user=provider.user)
    bid_submit(bid=premium, user=rival_provider.user)
    assert request_score(capacity_request=req).status == "done"
    return req


@pytest.fixture
def held_tasks(monkeypatch) -> list[int]:
    """Queued scoring waits here until the test runs it, so the page shows the wait."""
    queued: list[int] = []
    monkeypatch.setattr(
        "evaluation.services.send_task",
        lambda task, request_id, **_: queued.append(request_id) if task is score_request else None,
    )
    return queued


def _winner(page: Any) -> str:
    return page.locator("[data-winner]").inner_text()


def test_reweighting_rescoring_and_export(
    contest, held_tasks, new_page, login_as, live_server, tmp_path
):
    page = login_as(new_page(), "alice")
    page.goto(f"{live_server.url}/requests/{contest.pk}/")
    page.click("#compare-link")
    page.wait_for_selector("#chart-scores svg.main-svg")
    assert _winner(page) == "Rival Cloud"

    page.click("#change-weights")
    page.fill("#id_effective_cost", "100")
    for name in ("fabric_placement", "incident_sla", "acceptance_terms", "delivery_risk"):
        page.fill(f"#id_{name}", "0")
    page.click("text=Save weights and re-score")

    status = page.locator("#scoring-status")
    status.get_by_text("Re-scoring…").wait_for()
    assert "stale" in page.locator("#matrix h2").inner_text()
    assert held_tasks == [contest.pk]

    request_score(capacity_request=CapacityRequest.objects.get(pk=contest.pk))  # the worker's turn
    page.wait_for_function("!document.querySelector('#scoring-status .spinner')")
    page.wait_for_selector("#chart-scores svg.main-svg")
    page.wait_for_selector("#chart-goodput svg.main-svg")
    assert _winner(page) == "Northwind"
    assert "stale" not in page.locator("#matrix h2").inner_text()
    assert "100 / 0 / 0 / 0 / 0" in status.inner_text()
    assert "Effective cost\n100" in page.locator("#weights-now").inner_text()

    shown = {
        row: page.locator(f'tr[data-row="{row}"] td').all_inner_texts()
        for row in ("effective", "total", "goodput")
    }
    with page.expect_download() as info:
        page.click("#export-xlsx")
    path = tmp_path / "comparison.xlsx"
    info.value.save_as(path)
    sheet = load_workbook(path)["Comparison"]
    by_label = {row[1]: row[3:] for row in sheet.iter_rows(values_only=True)}
    assert list(by_label["Row"]) == ["Northwind", "Rival Cloud"]
    for key, label in (
        ("effective", "Effective price per useful GPU-hour"),
        ("total", "Weighted total"),
        ("goodput", "Goodput"),
    ):
        page_numbers = [float(re.sub(r"[^\d.]", "", t.split("\n")[0])) for t in shown[key]]
        assert [float(v) for v in by_label[label]] == page_numbers, label


def test_the_goodput_chart_keeps_each_bids_optimum_beside_the_buyers_interval(
    contest, new_page, login_as, live_server
):
    CapacityRequest.objects.filter(pk=contest.pk).update(checkpoint_interval_minutes=60)
    assert (
        request_score(capacity_request=CapacityRequest.objects.get(pk=contest.pk)).status == "done"
    )
    page = login_as(new_page(), "alice")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{live_server.url}/requests/{contest.pk}/compare/")
    page.wait_for_selector("#chart-goodput svg.main-svg")
    # Per bid: its curve, the diamond at the buyer's 60 minutes, the dotted line to its optimum.
    assert page.locator("#chart-goodput .scatterlayer .trace").count() == 3 * 2
    assert "yours, every 60 min" in page.locator("#chart-goodput").locator("..").inner_text()
    assert errors == []
