"""Who reaches the usage pages: the buyer's members and the awarded provider; the rival
provider, the rival buyer (`outsider`) and anonymous users get 404 or the login page, file and
export downloads included, and cannot upload or change a mapping."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

from billing.models import UsageMapping, UsageUpload
from tests import tenancy_registry
from tests.bids.test_tenancy import HIDDEN, LOGIN, OK, REDIRECT, ROLES, _only, client_for
from tests.billing.conftest import upload_and_map, usage_file

pytestmark = pytest.mark.django_db

PARTIES_GET = _only({"buyer": OK, "buyer_colleague": OK, "provider": OK})
# A done file has nothing to retry: the parties are sent back to it with the reason.
PARTIES_POST = _only({"buyer": REDIRECT, "buyer_colleague": REDIRECT, "provider": REDIRECT})

ROUTES: dict[str, tuple[str, Callable[[Any], list[Any]], dict[str, Any]]] = {
    "billing:usage-list": ("get", lambda w: [w.reservation.pk], PARTIES_GET),
    "billing:usage-detail": ("get", lambda w: [w.upload.pk], PARTIES_GET),
    "billing:usage-mapping": ("get", lambda w: [w.upload.pk], PARTIES_GET),
    "billing:usage-export": ("get", lambda w: [w.upload.pk, "xlsx"], PARTIES_GET),
    "billing:usage-file": ("get", lambda w: [w.upload.pk], PARTIES_GET),
    "billing:usage-retry": ("post", lambda w: [w.upload.pk], PARTIES_POST),
    "billing:usage-focus": ("get", lambda w: [w.upload.pk], PARTIES_GET),
}
tenancy_registry.register(*ROUTES)


@pytest.fixture
def tenancy_world(contracted, provider, django_capture_on_commit_callbacks) -> Any:
    contracted.upload = upload_and_map(
        contracted.reservation,
        provider.user,
        usage_file("usage_planted.csv"),
        django_capture_on_commit_callbacks,
    )
    return contracted


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
def test_non_parties_cannot_upload_or_remap(role, tenancy_world, request):
    client = client_for(role, request)
    url = reverse("billing:usage-list", args=[tenancy_world.reservation.pk])
    assert client.post(url, {"file": usage_file("usage_planted.csv")}).status_code == HIDDEN
    before = UsageMapping.objects.get().columns
    url = reverse("billing:usage-mapping", args=[tenancy_world.upload.pk])
    response = client.post(url, {"period_start": "usage_end", "unit": "hours"})
    assert response.status_code == HIDDEN
    assert UsageUpload.objects.count() == 1 and UsageMapping.objects.get().columns == before


@pytest.mark.parametrize("role", ["rival_provider", "outsider"])
def test_the_reservation_page_link_is_only_for_the_parties(role, tenancy_world, request):
    page = reverse("burnin:reservation-detail", args=[tenancy_world.reservation.pk])
    link = reverse("billing:usage-list", args=[tenancy_world.reservation.pk])
    assert link in client_for("buyer", request).get(page).content.decode()
    assert client_for(role, request).get(page).status_code == HIDDEN
