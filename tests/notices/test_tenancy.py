"""A user reads, opens and marks only their own notices: another user's is a 404, a colleague's
in the same organisation included, in the browser and by API alike."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

from notices.models import Notice
from tests import tenancy_registry
from tests.api.v1.conftest import token_client
from tests.bids.test_tenancy import HIDDEN, LOGIN, OK, REDIRECT, ROLES, _all, client_for

pytestmark = pytest.mark.django_db

SIGNED_IN = {**_all(OK), "anonymous": LOGIN}


def alices_notice(w: Any) -> list[Any]:
    # The world's submitted bids told the buyer's members (alice) of each revision.
    return [Notice.objects.filter(recipient__username="alice").first().public_id]


ROUTES: dict[str, tuple[str, Callable[[Any], list[Any]], dict[str, Any]]] = {
    # Everyone has a list and preferences of their own.
    "notices:list": ("get", lambda w: [], SIGNED_IN),
    "notices:preferences": ("get", lambda w: [], SIGNED_IN),
    "notices:read-all": ("post", lambda w: [], {**_all(REDIRECT), "anonymous": LOGIN}),
    # Alice's notice opens for Alice alone; her colleague Bob gets his own notices, not hers.
    "notices:open": (
        "get",
        alices_notice,
        {**_all(HIDDEN), "buyer": REDIRECT, "anonymous": LOGIN},
    ),
}
tenancy_registry.register(*ROUTES)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_route_gives_each_role_what_it_may_see(name, role, world, request):
    method, args, expected = ROUTES[name]
    response = getattr(client_for(role, request), method)(reverse(name, args=args(world)))
    if expected[role] == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == expected[role], f"{name} as {role}"


def test_the_list_shows_only_ones_own_notices(world, buyer, provider):
    assert "submitted revision 1" in buyer.client().get(reverse("notices:list")).content.decode()
    html = provider.client().get(reverse("notices:list")).content.decode()
    assert "submitted revision" not in html and "No notices yet" in html


def test_marking_all_read_leaves_other_users_notices_unread(world, buyer, buyer_colleague):
    from notices.services import notify_members

    notify_members(
        event="award", organization=buyer.org, subject="s", body="b", path="/", key="both"
    )
    buyer.client().post(reverse("notices:read-all"))
    assert Notice.objects.filter(recipient=buyer_colleague.user, read_at__isnull=True).exists()
    assert not Notice.objects.filter(recipient=buyer.user, read_at__isnull=True).exists()


def test_the_api_lists_and_marks_only_ones_own(world, buyer, provider):
    mine = Notice.objects.filter(recipient=buyer.user).first()
    client = token_client(buyer.user)
    listed = client.get("/api/v1/notices/").json()["results"]
    assert {n["id"] for n in listed} == {
        str(i)
        for i in Notice.objects.filter(recipient=buyer.user).values_list("public_id", flat=True)
    }
    assert token_client(provider.user).get("/api/v1/notices/").json()["results"] == []
    assert (
        token_client(provider.user).post(f"/api/v1/notices/{mine.public_id}/read/").status_code
        == 404
    )
    mine.refresh_from_db()
    assert mine.read_at is None
    response = client.post(f"/api/v1/notices/{mine.public_id}/read/")
    assert response.status_code == 200 and response.json()["unread"] is False
    assert [
        n["id"] for n in client.get("/api/v1/notices/", {"unread": "true"}).json()["results"]
    ] == [
        str(n.public_id) for n in Notice.objects.filter(recipient=buyer.user, read_at__isnull=True)
    ]
