"""The request page's link to the annexes appears only for those the annexes page lets in."""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def _panel(role, request):
    html = role.client().get(reverse("bids:request-detail", args=[request.pk])).content.decode()
    return 'id="annexes-panel"' in html


def test_the_awarded_provider_and_the_buyer_see_the_link_the_losing_bidder_does_not(
    awarded, buyer, provider, rival_provider
):
    assert _panel(buyer, awarded.request) and _panel(provider, awarded.request)
    assert not _panel(rival_provider, awarded.request)
    annexes = reverse("annexes:list", args=[awarded.request.pk])
    assert rival_provider.client().get(annexes).status_code == 404  # what the link would hit


def test_the_buyer_finds_the_comparison_summary_before_the_award(world, buyer):
    assert _panel(buyer, world.request)
    page = buyer.client().get(reverse("bids:request-detail", args=[world.request.pk]))
    assert "It can be generated once a bid is awarded." in page.content.decode()
