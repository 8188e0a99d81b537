"""Who reaches which questionnaire page. A rival provider never reads another's answers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

from questionnaire import selectors, services
from questionnaire.models import BidQuestionnaire
from tests import tenancy_registry
from tests.bids.test_tenancy import HIDDEN, LOGIN, OK, REDIRECT, ROLES, client_for
from tests.questionnaire.conftest import full_answers


def _only(allowed: dict[str, Any]) -> dict[str, Any]:
    expected = dict.fromkeys(ROLES, HIDDEN)
    expected["anonymous"] = LOGIN
    expected.update(allowed)
    return expected


OWNER_ONLY = _only({"provider": OK})
OWNER_POST = _only({"provider": REDIRECT})
BUYERS = _only({"buyer": OK, "buyer_colleague": OK})
BUYERS_POST = _only({"buyer": REDIRECT, "buyer_colleague": REDIRECT})

ROUTES: dict[str, tuple[str, Callable[[Any], list[Any]], dict[str, Any]]] = {
    "questionnaire:answers-edit": ("get", lambda w: [w.bid.pk], OWNER_ONLY),
    "questionnaire:answers-export": ("get", lambda w: [w.bid.pk], OWNER_ONLY),
    "questionnaire:answers-import": ("post", lambda w: [w.bid.pk], OWNER_POST),
    "questionnaire:answers-copy": ("post", lambda w: [w.bid.pk], OWNER_POST),
    "questionnaire:conflicts-keep": ("post", lambda w: [w.bid.pk], OWNER_POST),
    "questionnaire:revision-diff": (
        "get",
        lambda w: [w.bid.pk],
        _only({"provider": OK, "buyer": OK, "buyer_colleague": OK}),
    ),
    "questionnaire:set-edit": ("get", lambda w: [w.request.pk], BUYERS),
    "questionnaire:set-attach": ("post", lambda w: [w.request.pk], BUYERS_POST),
    "questionnaire:matrix": ("get", lambda w: [w.request.pk], BUYERS),
}
tenancy_registry.register(*ROUTES)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_route_gives_each_role_what_it_may_see(name, role, world, request):
    method, args, expected = ROUTES[name]
    response = getattr(client_for(role, request), method)(reverse(name, args=args(world)))
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"


@pytest.fixture
def answered(asked_request, world, provider):
    qs = selectors.current_question_set(capacity_request=asked_request)
    raw = full_answers(qs) | {"coverage.time_zone": "Secret-Northwind-TZ"}
    services.answers_save(bid=world.bid, user=provider.user, raw=raw)
    return world


def test_a_rival_provider_reads_no_answers_through_any_url(answered, rival_provider):
    client = rival_provider.client()
    w = answered
    for name, args in [
        ("questionnaire:answers-edit", [w.bid.pk]),
        ("questionnaire:answers-export", [w.bid.pk]),
        ("questionnaire:revision-diff", [w.bid.pk]),
        ("questionnaire:matrix", [w.request.pk]),
        ("questionnaire:set-edit", [w.request.pk]),
        ("bids:bid-detail", [w.bid.pk]),
    ]:
        response = client.get(reverse(name, args=args))
        assert response.status_code == 404, name
        assert b"Secret-Northwind-TZ" not in response.content
    own = client.get(reverse("bids:bid-detail", args=[w.rival_bid.pk])).content.decode()
    assert "Secret-Northwind-TZ" not in own
    # Copying from someone else's bid is refused without revealing it.
    response = client.post(
        reverse("questionnaire:answers-copy", args=[w.rival_bid.pk]), {"source": w.bid.pk}
    )
    assert response.status_code == 302
    assert not BidQuestionnaire.objects.filter(bid=w.rival_bid).exists()


def test_the_buyer_sees_no_draft_answers_and_nothing_while_sealed(answered, buyer, provider):
    from bids.services import bid_submit

    client = buyer.client()
    matrix = reverse("questionnaire:matrix", args=[answered.request.pk])
    assert "Secret-Northwind-TZ" not in client.get(matrix).content.decode()  # still a draft
    bid_submit(bid=answered.bid, user=provider.user)
    assert "Secret-Northwind-TZ" in client.get(matrix).content.decode()
    answered.request.sealed = True
    answered.request.save()
    html = client.get(matrix).content.decode()
    assert "Secret-Northwind-TZ" not in html and "Northwind" not in html
    diff = reverse("questionnaire:revision-diff", args=[answered.bid.pk])
    assert client.get(diff).status_code == 404
