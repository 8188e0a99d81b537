"""`GET /api/v1/members/`: the acting organisation's members, never another's."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from api.services import token_create
from orgs.models import Membership

pytestmark = pytest.mark.django_db


def _client(role, org_slug=None):
    _, secret = token_create(user=role.user, name="script")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    if org_slug:
        client.credentials(HTTP_AUTHORIZATION=f"Token {secret}", HTTP_X_CLUSTERBID_ORG=org_slug)
    return client


def test_the_list_holds_the_acting_organisations_members(buyer, buyer_colleague, provider):
    rows = _client(buyer).get("/api/v1/members/").json()["results"]
    assert [(r["username"], r["email"], r["role"]) for r in rows] == [
        ("alice", "alice@example.com", "admin"),
        ("bob", "bob@example.com", "admin"),
    ]
    assert set(rows[0]) == {"id", "username", "name", "email", "role", "since"}
    rows = _client(provider).get("/api/v1/members/").json()["results"]
    assert [r["username"] for r in rows] == ["nora"]


def test_a_member_of_two_lists_the_one_named_in_the_header(buyer, provider):
    Membership.objects.create(user=provider.user, organization=buyer.org, role="approver")
    rows = _client(provider, "helix").get("/api/v1/members/").json()["results"]
    assert {r["username"] for r in rows} == {"alice", "nora"}
    rows = _client(provider, "northwind").get("/api/v1/members/").json()["results"]
    assert [r["username"] for r in rows] == ["nora"]


def test_an_organisation_the_user_does_not_belong_to_is_a_404(provider, buyer):
    assert _client(provider, "helix").get("/api/v1/members/").status_code == 404
