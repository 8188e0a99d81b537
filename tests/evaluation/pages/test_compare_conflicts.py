"""The comparison flags, per bid, a fact the bid states twice with two values."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from bids.models import BidRevision
from bids.services import bid_save_draft, bid_submit
from questionnaire.models import KeptConflicts
from questionnaire.selectors import revision_conflicts
from questionnaire.services import conflicts_keep
from tests.evaluation.pages.conftest import add_bids, score

KEPT_REASON = "Two spares are on site; one is reserved for this cluster alone."


def _page(client: Any, req: Any, query: str = "") -> str:
    response = client.get(reverse("evaluation:request-compare", args=[req.pk]) + query)
    assert response.status_code == 200
    return response.content.decode()


def _flagged(html: str) -> str:
    section = html[html.index('id="fact-conflicts"') :]
    return section[: section.index("</section>")]


def _two_spares_in_the_notes(bid: Any, user: Any, reason: str = KEPT_REASON) -> None:
    """One spare node on the bid, '2 spare nodes' in its notes, kept as stated, submitted."""
    bid_save_draft(
        bid=bid,
        user=user,
        data={
            "spares_count": 1,
            "spares_location": "same_site",
            "notes": "Northwind keeps 2 spare nodes on site.",
        },
    )
    conflicts_keep(bid=bid, user=user, reason=reason)
    bid_submit(bid=bid, user=user)


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


def test_conflicts_the_provider_kept_show_its_reason_instead_of_asking(world, buyer, provider):
    """GIVEN Northwind kept both spare counts as stated, with a reason THEN the comparison
    prints that reason beside them, not 'ask the provider'; anonymised, the reason (the
    provider's own words) is hidden but the buyer still learns both were kept on purpose."""
    _two_spares_in_the_notes(world.bid, provider.user)
    assert score(world.request).status == "done"

    flagged = _flagged(_page(buyer.client(), world.request))
    assert f"The provider kept both values as stated because: {KEPT_REASON}" in flagged
    assert "kept as stated</span>" in flagged
    assert "ask the provider" not in flagged.lower()

    anonymised = _flagged(_page(buyer.client(), world.request, "?labels=anonymous"))
    assert "kept both values as stated, with a reason hidden while anonymised." in anonymised
    assert "reserved for this cluster" not in anonymised
    assert "ask the provider" not in anonymised.lower()


def test_a_reason_kept_for_a_later_draft_does_not_answer_the_compared_revision(
    world, buyer, provider
):
    """GIVEN the compared revision's conflict, and later a draft keeping another one with
    another reason THEN the compared conflict is not marked kept, and the buyer is told to ask."""
    _two_spares_in_the_notes(world.bid, provider.user)
    bid_save_draft(
        bid=world.bid, user=provider.user, data={"notes": "Northwind keeps 3 spare nodes."}
    )
    conflicts_keep(bid=world.bid, user=provider.user, reason="Three is the new plan for spares.")
    assert score(world.request).status == "done"

    flagged = _flagged(_page(buyer.client(), world.request))
    assert "but 2 in the bid&#x27;s notes" in flagged and "kept as stated</span>" not in flagged
    assert "Three is the new plan" not in flagged
    assert "Ask the provider which value it means before you award." in flagged


def _kept_bulk_bids(req: Any, count: int) -> None:
    """`count` bids stating '2 spare nodes' beside one, each kept as stated (a few queries)."""
    terms = {"spares_count": 1, "spares_location": "same_site", "notes": "2 spare nodes here."}
    bids = add_bids(req, count, extra=terms)
    revision = BidRevision.objects.get(bid=bids[0])
    messages = [c.message for c in revision_conflicts(revision=revision, agreed=None)]
    assert messages
    KeptConflicts.objects.bulk_create(
        KeptConflicts(bid=b, messages=messages, reason=f"Bulk reason {i}.")
        for i, b in enumerate(bids)
    )


def test_the_kept_reasons_cost_one_query_for_any_number_of_bids(world, buyer, provider):
    client = buyer.client()
    _two_spares_in_the_notes(world.bid, provider.user)

    def counted() -> tuple[int, str]:
        with CaptureQueriesContext(connection) as ctx:
            html = _page(client, world.request)
        return len(ctx.captured_queries), html

    score(world.request)
    _page(client, world.request)  # builds the presentation; the counts below read it back
    small, html = counted()
    assert KEPT_REASON in _flagged(html)

    _kept_bulk_bids(world.request, 20)
    score(world.request)
    _page(client, world.request)
    large, html = counted()
    flagged = _flagged(html)
    assert all(f"Bulk reason {i}." in flagged for i in range(20)) and KEPT_REASON in flagged
    assert large == small, f"{small} queries for 1 conflicted bid, {large} for 21"
