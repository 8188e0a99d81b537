"""Who reaches the reservation, run, evidence, token and API routes: the buyer's members and the
awarded provider; the rival provider and outsiders get 404 everywhere, downloads and API too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

from acceptance.models import Baseline
from api.services import token_create
from tests import tenancy_registry
from tests.acceptance.burnin.helpers import Awarded, upload_all
from tests.bids.test_tenancy import HIDDEN, LOGIN, OK, REDIRECT, ROLES, _only, client_for

PARTIES_GET = _only({"buyer": OK, "buyer_colleague": OK, "provider": OK})
PARTIES_POST = _only({"buyer": REDIRECT, "buyer_colleague": REDIRECT, "provider": REDIRECT})
PARTIES_FORM = PARTIES_GET  # an empty form comes back with its errors
BUYERS_FORM = _only({"buyer": OK, "buyer_colleague": OK})
BUYERS_POST = _only({"buyer": REDIRECT, "buyer_colleague": REDIRECT})
API_UNAUTHENTICATED = 401


def _api(allowed: int) -> dict[str, Any]:
    expected = dict.fromkeys(ROLES, HIDDEN)
    expected.update(buyer=allowed, buyer_colleague=allowed, provider=allowed)
    expected["anonymous"] = API_UNAUTHENTICATED
    return expected


ROUTES: dict[str, tuple[str, Callable[[Any], list[Any]], dict[str, Any]]] = {
    "evaluation:bid-award": ("post", lambda w: [w.bid.pk], BUYERS_POST),
    "burnin:reservation-detail": ("get", lambda w: [w.reservation.pk], PARTIES_GET),
    "burnin:run-create": ("post", lambda w: [w.reservation.pk], PARTIES_POST),
    "burnin:reservation-reject": ("post", lambda w: [w.reservation.pk], BUYERS_FORM),
    "burnin:reservation-baseline": ("get", lambda w: [w.reservation.pk], PARTIES_GET),
    "burnin:run-detail": ("get", lambda w: [w.run.pk], PARTIES_GET),
    "burnin:run-status": ("get", lambda w: [w.run.pk], PARTIES_GET),
    "burnin:run-upload": ("post", lambda w: [w.run.pk], PARTIES_FORM),
    "burnin:run-recheck": ("post", lambda w: [w.run.pk], PARTIES_POST),
    # Accept refuses (no passing gate here): the buyer reads why on the run page.
    "burnin:run-accept": ("post", lambda w: [w.run.pk], BUYERS_POST),
    # The buyer decides: an empty override request comes back with its errors; the provider,
    # a party to the reservation, is refused like everyone else who is not the buyer.
    "burnin:run-override": ("post", lambda w: [w.run.pk], BUYERS_FORM),
    # Explaining a finding away is the buyer's: an empty form comes back with its errors.
    "burnin:run-explain-finding": ("post", lambda w: [w.run.pk], BUYERS_FORM),
    # No override awaits approval: the buyer is told why; nobody else reaches the route.
    "burnin:override-approve": ("post", lambda w: [w.reservation.pk], BUYERS_POST),
    "burnin:override-decline": ("post", lambda w: [w.reservation.pk], BUYERS_POST),
    "burnin:evidence-download": ("get", lambda w: [w.evidence.pk], PARTIES_GET),
    "burnin:evidence-retry": ("post", lambda w: [w.evidence.pk], PARTIES_POST),
    "burnin:evidence-withdraw": ("post", lambda w: [w.evidence.pk], PARTIES_POST),
    "api:token-list": ("get", lambda w: [], {**dict.fromkeys(ROLES, OK), "anonymous": LOGIN}),
    "api:token-revoke": ("post", lambda w: [w.token.pk], _only({"buyer": REDIRECT})),
    "api:run-evidence": ("get", lambda w: [w.run.pk], _api(OK)),
}
tenancy_registry.register(*ROUTES)


@pytest.fixture
def tenancy_world(awarded: Awarded, buyer, provider, django_capture_on_commit_callbacks) -> Any:
    (awarded.evidence,) = upload_all(
        awarded.run,
        provider.user,
        [("burnin/nccl-tests/all_reduce_2node_slow.txt", "")],
        django_capture_on_commit_callbacks,
    )
    Baseline.objects.create(reservation=awarded.reservation, run=awarded.run, snapshot={})
    awarded.token = token_create(user=buyer.user, name="laptop")[0]
    return awarded


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_route_gives_each_role_what_it_may_see(name, role, tenancy_world, request):
    method, args, expected = ROUTES[name]
    response = getattr(client_for(role, request), method)(reverse(name, args=args(tenancy_world)))
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"


@pytest.mark.parametrize("role", ["rival_provider", "outsider"])
def test_the_api_upload_is_hidden_from_non_parties(role, tenancy_world, request):
    url = reverse("api:run-evidence", args=[tenancy_world.run.pk])
    client = client_for(role, request)
    response = client.post(url, {"file": tenancy_world.evidence.file.open("rb")})
    assert response.status_code == 404
    assert tenancy_world.run.evidence.count() == 1


def test_the_request_page_shows_the_reservation_only_to_the_parties(tenancy_world, request):
    url = reverse("bids:request-detail", args=[tenancy_world.request.pk])
    link = reverse("burnin:reservation-detail", args=[tenancy_world.reservation.pk])
    for role, sees in [("buyer", True), ("provider", True), ("rival_provider", False)]:
        html = client_for(role, request).get(url).content.decode()
        assert (link in html) is sees, role
