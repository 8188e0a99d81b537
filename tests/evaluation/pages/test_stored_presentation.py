"""The comparison's presentation is stored with its run: built once, shown again while what it
read still holds, built again on the next load once a provider's name, the agreed terms or
anything else it reads has changed, and shown to nobody the page itself refuses."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from bids.services import bid_save_draft, bid_submit
from contracts.services.terms import terms_create
from orgs.models import Organization
from tests.api.v1.conftest import token_client
from tests.evaluation.pages.conftest import add_bids, score

pytestmark = pytest.mark.django_db


def _page(client: Any, req: Any, query: str = "") -> str:
    response = client.get(reverse("evaluation:request-compare", args=[req.pk]) + query)
    assert response.status_code == 200
    return response.content.decode()


def _api(client: Any, req: Any) -> dict[str, Any]:
    response = client.get(f"/api/v1/requests/{req.pk}/comparison/")
    assert response.status_code == 200
    return response.json()


def _matrix(html: str) -> str:
    return html.split('<table class="table matrix">')[1].split("</table>")[0]


def _stored(ctx: CaptureQueriesContext) -> list[str]:
    """The statements that wrote a presentation."""
    return [
        q["sql"]
        for q in ctx.captured_queries
        if "comparisonpresentation" in q["sql"].lower()
        and q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE"))
    ]


def test_a_renamed_provider_shows_on_the_next_load(scored, buyer, provider):
    client, api = buyer.client(), token_client(buyer.user)
    assert "Northwind" in _page(client, scored.request)
    assert "Northwind" in {c["name"] for c in _api(api, scored.request)["columns"]}

    # Renamed behind the app's back: nothing is told, the next read notices by itself.
    Organization.objects.filter(pk=provider.org.pk).update(name="Nordvind Compute")

    html = _page(client, scored.request)
    assert "Nordvind Compute" in html and "Northwind" not in html
    names = {c["name"] for c in _api(api, scored.request)["columns"]}
    assert names == {"Nordvind Compute", "Rival Cloud"}


def test_terms_agreed_after_scoring_show_their_conflict_on_the_next_load(world, buyer, provider):
    """GIVEN a bid whose notes promise 7 days' notice of maintenance and no handoff terms yet:
    no conflict. WHEN the buyer agrees terms with another notice THEN the next load flags it."""
    bid_save_draft(
        bid=world.bid,
        user=provider.user,
        data={"notes": "We give 7 days' notice of maintenance."},
    )
    bid_submit(bid=world.bid, user=provider.user)
    assert score(world.request).status == "done"
    client = buyer.client()
    assert 'id="fact-conflicts"' not in _page(client, world.request)

    terms_create(capacity_request=world.request, user=buyer.user, template="training-24x7")

    html = _page(client, world.request)
    section = html[html.index('id="fact-conflicts"') :]
    assert "<strong>Northwind</strong>" in section
    assert "Maintenance notice:" in section and "in the handoff terms" in section


def test_the_stored_presentation_is_reused_while_nothing_changes(scored, buyer):
    client, api = buyer.client(), token_client(buyer.user)
    with CaptureQueriesContext(connection) as first:
        built = _page(client, scored.request)
    with CaptureQueriesContext(connection) as again:
        shown = _page(client, scored.request)
    assert _stored(first) and not _stored(again)
    assert len(again) < len(first)
    assert _matrix(shown) == _matrix(built) and "Rival Cloud" in _matrix(shown)

    # The API, the exports and the other labelling read the same store.
    with CaptureQueriesContext(connection) as by_api:
        _api(api, scored.request)
    assert not _stored(by_api)
    export = client.get(reverse("evaluation:request-compare-csv", args=[scored.request.pk]))
    assert export.status_code == 200 and "Northwind" in export.content.decode()
    with CaptureQueriesContext(connection) as anonymous:
        _page(client, scored.request, "?labels=anonymous")
    assert _stored(anonymous)
    with CaptureQueriesContext(connection) as anonymous_again:
        _page(client, scored.request, "?labels=anonymous")
    assert not _stored(anonymous_again)


@pytest.mark.parametrize("role", ["provider", "rival_provider", "outsider"])
def test_nobody_else_is_shown_the_stored_presentation(scored, buyer, role, request):
    _page(buyer.client(), scored.request)
    _page(buyer.client(), scored.request, "?labels=anonymous")
    other = request.getfixturevalue(role)
    for query in ("", "?labels=anonymous"):
        url = reverse("evaluation:request-compare", args=[scored.request.pk]) + query
        response = other.client().get(url)
        assert response.status_code == 404
        body = response.content.decode()
        assert 'class="table matrix"' not in body and "Weighted total" not in body
        assert {"Northwind", "Rival Cloud"} - {other.org.name} <= {
            n for n in ("Northwind", "Rival Cloud") if n not in body
        }
    response = token_client(other.user).get(f"/api/v1/requests/{scored.request.pk}/comparison/")
    assert response.status_code == 404


def test_the_api_costs_the_same_queries_for_2_and_200_bids(world, buyer):
    """Built or read back, the comparison API's query count does not grow with its bids."""
    api = token_client(buyer.user)

    def counted() -> int:
        with CaptureQueriesContext(connection) as ctx:
            _api(api, world.request)
        return len(ctx.captured_queries)

    api.get("/api/v1/requests/")  # the token's first use is recorded once
    score(world.request)
    small_first, small = counted(), counted()
    add_bids(world.request, 198)
    assert score(world.request).bid_count == 200
    large_first, large = counted(), counted()
    assert large_first == small_first, f"{small_first} queries for 2 bids, {large_first} for 200"
    assert large == small < small_first
