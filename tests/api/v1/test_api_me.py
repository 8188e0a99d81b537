"""`GET /api/v1/me/`: who the token is, every organisation it may act for, and the one it does."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from orgs.models import Membership
from tests.api.v1.conftest import token_client
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_me_names_the_acting_organisation_and_lists_all_by_name(buyer, provider):
    Membership.objects.create(user=provider.user, organization=buyer.org, role="approver")
    client = token_client(provider.user)
    body = client.get("/api/v1/me/").json()
    assert body["username"] == provider.user.username
    assert body["organization"]["slug"] == provider.org.slug  # the one joined first
    names = [org["name"] for org in body["organizations"]]
    assert names == sorted([buyer.org.name, provider.org.name])

    body = client.get("/api/v1/me/", HTTP_X_CLUSTERBID_ORG=buyer.org.slug).json()
    assert body["organization"]["slug"] == buyer.org.slug
    assert [org["name"] for org in body["organizations"]] == names


def test_me_reads_the_token_and_the_memberships_once(buyer):
    client = token_client(buyer.user)
    client.get("/api/v1/me/")  # the token's first use is recorded once
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/api/v1/me/").status_code == 200
    assert len(queries) == 2, [q["sql"][:80] for q in queries]


def test_me_of_a_member_of_none_acts_for_none():
    client = token_client(UserFactory())
    body = client.get("/api/v1/me/").json()
    assert body["organization"] is None and body["organizations"] == []
