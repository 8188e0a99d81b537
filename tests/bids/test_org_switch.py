"""A member of two organisations who opens the other one's bid or request is switched to it;
someone who belongs to neither still gets 404."""

from __future__ import annotations

import pytest
from django.urls import reverse

from orgs.middleware import SESSION_KEY
from orgs.models import Membership

pytestmark = pytest.mark.django_db


def _acting_for_rival(provider, rival_provider):
    """Nora belongs to Northwind and Rival Cloud (like the demo's sam) and acts for the rival."""
    Membership.objects.create(user=provider.user, organization=rival_provider.org)
    client = provider.client()
    client.post(reverse("orgs:switch-org"), {"organization": rival_provider.org.pk})
    return client


@pytest.mark.parametrize("route", ["bids:bid-detail", "bids:revision-detail"])
def test_the_other_organisations_bid_switches_and_comes_back(
    world, provider, rival_provider, route
):
    client = _acting_for_rival(provider, rival_provider)
    args = [world.bid.pk] + ([1] if route == "bids:revision-detail" else [])
    url = reverse(route, args=args)
    response = client.get(url)
    assert response.status_code == 302 and response["Location"] == url
    assert client.session[SESSION_KEY] == provider.org.pk
    page = client.get(url)
    assert page.status_code == 200
    assert "Switched to Northwind to show this page." in page.content.decode()


def test_the_other_organisations_request_switches_too(world, provider, rival_provider):
    from tests.factories import OrganizationFactory

    stranger = OrganizationFactory(name="Uninvited GPUs", slug="uninvited", kind="provider")
    Membership.objects.create(user=provider.user, organization=stranger)
    client = provider.client()
    client.post(reverse("orgs:switch-org"), {"organization": stranger.pk})
    url = reverse("bids:request-detail", args=[world.request.pk])
    page = client.get(url, follow=True)
    assert page.redirect_chain == [(url, 302)]
    assert "Switched to Northwind to show this page." in page.content.decode()


def test_an_outsider_still_gets_404_and_a_post_never_switches(world, provider, rival_provider):
    url = reverse("bids:bid-detail", args=[world.bid.pk])
    assert rival_provider.client().get(url).status_code == 404
    client = _acting_for_rival(provider, rival_provider)
    response = client.post(reverse("bids:bid-withdraw", args=[world.bid.pk]))
    assert response.status_code == 404
    assert client.session[SESSION_KEY] == rival_provider.org.pk
