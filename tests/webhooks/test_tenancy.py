"""Who reaches the webhook pages: the acting organisation's administrators manage its own
endpoints; another organisation's endpoint or delivery is a 404 to everyone else, and the
organisation's other members get a 403 page that names its administrators."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from notices.choices import Event
from notices.services import notify_members
from tests import tenancy_registry
from tests.bids.test_tenancy import LOGIN, OK, REDIRECT, ROLES, _all, _only, client_for
from tests.webhooks.conftest import subscribe
from webhooks.models import Delivery, Endpoint

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("private_targets")]

HELIX_ADMINS_READ = _only({"buyer": OK, "buyer_colleague": OK})
HELIX_ADMINS_POST = _only({"buyer": REDIRECT, "buyer_colleague": REDIRECT})


def _endpoint(w: Any) -> list[Any]:
    return [w.endpoint.public_id]


def _delivery(w: Any) -> list[Any]:
    return [w.delivery.public_id]


# name -> (method, path arguments, expected per role); the objects are Helix Labs' endpoint
# and its one delivery.
ROUTES: dict[str, tuple[str, Any, dict[str, Any]]] = {
    # Every organisation's administrators have a list of their own.
    "webhooks:list": ("get", lambda w: [], {**_all(OK), "anonymous": LOGIN}),
    "webhooks:detail": ("get", _endpoint, HELIX_ADMINS_READ),
    # Answers with the new secret on the page itself.
    "webhooks:rotate": ("post", _endpoint, HELIX_ADMINS_READ),
    "webhooks:delete": ("post", _endpoint, HELIX_ADMINS_POST),
    "webhooks:redeliver": ("post", _delivery, HELIX_ADMINS_POST),
}
tenancy_registry.register(*ROUTES)


class Hooks:
    def __init__(self, buyer: Any) -> None:
        self.endpoint, _ = subscribe(buyer, "http://127.0.0.1:9/hook", Event.BIDS_OPENED)
        notify_members(
            event=Event.BIDS_OPENED,
            organization=buyer.org,
            subject="s",
            body="b",
            path="/",
            key="a:1",
        )
        self.delivery = Delivery.objects.get()
        Delivery.objects.filter(pk=self.delivery.pk).update(state="failed")


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_webhook_route_gives_each_role_what_it_may_see(name, role, buyer, buyer_colleague, request):
    hooks = Hooks(buyer)
    method, args, expected = ROUTES[name]
    response = getattr(client_for(role, request), method)(reverse(name, args=args(hooks)))
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"
    if want not in (OK, REDIRECT):
        assert Endpoint.objects.filter(pk=hooks.endpoint.pk).exists()
        assert Delivery.objects.get().state == "failed"


@pytest.mark.parametrize("name", sorted(ROUTES))
def test_a_member_who_is_not_an_administrator_gets_the_403_page(name, buyer, buyer_requester):
    hooks = Hooks(buyer)
    method, args, _ = ROUTES[name]
    response = getattr(buyer_requester.client(), method)(reverse(name, args=args(hooks)))
    assert response.status_code == 403
    html = response.content.decode()
    assert "Only the administrators of Helix Labs manage its webhooks" in html and "alice" in html
    assert "127.0.0.1:9/hook" not in html
    assert Endpoint.objects.filter(pk=hooks.endpoint.pk).exists()
    assert Delivery.objects.get().state == "failed"


def test_each_organisation_lists_only_its_own_endpoints(buyer, provider):
    Hooks(buyer)
    html = provider.client().get(reverse("webhooks:list")).content.decode()
    assert "127.0.0.1:9/hook" not in html and "No endpoints yet" in html
