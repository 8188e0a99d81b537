"""Award scenarios in a real browser, solved by a real worker: the buyer defines two scenarios
on the worked example's request (one refused first, what was typed kept), waits for both, and
compares them side by side."""

from __future__ import annotations

import pytest

from tests.evaluation.scenarios import world

# The worked example's request (docs/award-optimisation.md) and its third bidder.
worked, cirrus = world.worked, world.cirrus

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _column_cells(page, row_selector: str) -> list[str]:
    return page.locator(f"{row_selector} td").all_inner_texts()


def test_define_two_scenarios_and_compare_them(
    live_server,
    new_page,
    login_as,
    real_worker,
    worked,
    buyer,
):
    page = login_as(new_page(), buyer.user.username)
    page.goto(f"{live_server.url}/requests/{worked.pk}/scenarios/")
    assert "No scenarios yet" in page.inner_text("#scenario-comparison")

    # A contradiction is named on its field and the form keeps what was typed.
    page.fill("#id_name", "Cap 75 %, two regions")
    page.fill("#id_min_providers", "3")
    page.fill("#id_max_providers", "2")
    page.fill("#id_max_share_pct", "75")
    page.fill("#id_min_regions", "2")
    page.click("#scenario-form button[type=submit]")
    assert "cannot meet the minimum of 3" in page.inner_text("#id_max_providers_error")
    assert page.input_value("#id_name") == "Cap 75 %, two regions"
    page.fill("#id_min_providers", "")
    page.fill("#id_max_providers", "")
    page.click("#scenario-form button[type=submit]")
    page.wait_for_selector("text=is queued for solving")

    page.fill("#id_name", "No rules")
    page.click("#scenario-form button[type=submit]")
    page.wait_for_selector("text=is queued for solving")

    # The page refreshes itself until both are solved.
    page.wait_for_function(
        "document.querySelectorAll('.status-row td.status-solved').length === 2",
        timeout=90_000,
    )
    headers = page.locator("#scenario-comparison thead th").all_inner_texts()
    assert headers[1].startswith("Cap 75 %, two regions") and headers[2].startswith("No rules")
    assert _column_cells(page, ".cost-row") == ["$677,606.40", "$675,532.80"]
    cirrus_row = page.locator(".allocation-row", has_text="Lot 2 · Cirrus Compute")
    assert cirrus_row.locator("td").all_inner_texts() == ["48 GPUs (6 nodes)", ""]
    rival_b = page.locator(".allocation-row", has_text="Lot 2 · Rival Cloud")
    assert rival_b.locator("td").all_inner_texts() == ["80 GPUs (10 nodes)", "128 GPUs (16 nodes)"]
    share = page.locator(".rule-row", has_text="no provider over 75")
    assert share.locator("td").first.inner_text().startswith("$2,073.60")
    with page.expect_download() as download:
        page.click("#scenarios-xlsx")
    assert download.value.suggested_filename.endswith(".xlsx")
