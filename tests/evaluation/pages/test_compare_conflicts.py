"""The comparison flags, per bid, a fact the bid states twice with two values."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from bids.services import bid_save_draft, bid_submit
from questionnaire.services import conflicts_keep
from tests.evaluation.pages.conftest import score

KEPT_REASON = "Two spares are on site; one is reserved for this cluster alone."


def _page(client: Any, req: Any, query: str = "") -> str:
    response = client.get(reverse("evaluation:request-compare", args=[req.pk]) + query)
    assert response.status_code == 200
    return response.content.decode()


def test_a_conflicting_bid_is_flagged_on_the_comparison_with_both_values(world, buyer, provider):
    """GIVEN Northwind's bid of 1 spare node whose notes say '2 spare nodes' THEN the buyer's
    comparison lists that conflict under Northwind, and nothing under Rival Cloud."""
    bid_save_draft(
        bid=world.bid,
        user=provider.user,
        data={
            "spares_count": 1,
            "spares_location": "same_site",
            "notes": "Northwind keeps 2 spare nodes on site.",
        },
    )
    conflicts_keep(bid=world.bid, user=provider.user, reason=KEPT_REASON)
    bid_submit(bid=world.bid, user=provider.user)
    assert score(world.request).status == "done"

    html = _page(buyer.client(), world.request)
    section = html[html.index('id="fact-conflicts"') :]
    section = section[: section.index("</section>")]
    assert "<strong>Northwind</strong>" in section and "Rival Cloud" not in section
    assert (
        "Spare nodes: 1 in the bid field &#x27;Spare nodes&#x27;, but 2 in the bid&#x27;s notes"
        in section
    )
    assert "Northwind keeps 2 spare nodes" in section  # the words, quoted

    anonymised = _page(buyer.client(), world.request, "?labels=anonymous")
    flagged = anonymised[anonymised.index('id="fact-conflicts"') :]
    flagged = flagged[: flagged.index("</section>")]
    assert "but 2 in the bid&#x27;s notes." in flagged  # the provider's own words are left out
    assert "Northwind" not in flagged


def test_bids_that_agree_with_themselves_show_no_conflict_box(world, buyer):
    assert score(world.request).status == "done"
    assert 'id="fact-conflicts"' not in _page(buyer.client(), world.request)
