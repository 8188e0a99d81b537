"""The lots table on a draft request: the Edit and Remove buttons sit in a table cell like the
row's others, so the row's line runs straight under all of them."""

from __future__ import annotations

import pytest

from tests.factories import CapacityRequestFactory, LotFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_lot_rows_action_cell_lines_up_with_the_row(live_server, new_page, login_as, buyer):
    req = CapacityRequestFactory(buyer=buyer.org, draft=True, gpu_count=32, nodes=4)
    LotFactory(request=req, number=1, name="Pre-training")
    page = login_as(new_page(viewport={"width": 1280, "height": 900}), "alice")
    page.goto(f"{live_server.url}/requests/{req.pk}/")
    row = page.locator("#lot-1")
    assert row.locator("a:text('Edit')").is_visible()
    edges = row.evaluate(
        "tr => [...tr.cells].map(td => { const r = td.getBoundingClientRect();"
        " return [Math.round(r.top), Math.round(r.bottom)]; })"
    )
    assert len(set(map(tuple, edges))) == 1, edges
