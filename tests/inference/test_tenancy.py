"""Who reaches the inference routes: the buyer's members and the awarded provider; the rival
provider, an outsider (another buyer) and anonymous visitors do not."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

from inference.models import ServedResponsesFile
from inference.services import served_upload
from tests import tenancy_registry
from tests.bids.test_tenancy import HIDDEN, OK, REDIRECT, ROLES, _only, client_for
from tests.inference.helpers import inference_reservation, upload

pytestmark = pytest.mark.django_db

PARTIES_GET = _only({"buyer": OK, "buyer_colleague": OK, "provider": OK})
PARTIES_POST = _only({"buyer": REDIRECT, "buyer_colleague": REDIRECT, "provider": REDIRECT})

ROUTES: dict[str, tuple[str, Callable[[Any], list[Any]], dict[str, Any]]] = {
    "inference:served-list": ("get", lambda w: [w.reservation_id], PARTIES_GET),
    "inference:served-detail": ("get", lambda w: [w.pk], PARTIES_GET),
    "inference:served-retry": ("post", lambda w: [w.pk], PARTIES_POST),
}
tenancy_registry.register(*ROUTES)


@pytest.fixture
def served_file(buyer, provider, rival_provider, outsider, media_root) -> ServedResponsesFile:
    reservation = inference_reservation(buyer, provider)
    row, _ = served_upload(
        reservation=reservation, user=provider.user, upload=upload("request_log.csv")
    )
    return row


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_route_gives_each_role_what_it_may_see(name, role, served_file, request):
    method, args, expected = ROUTES[name]
    url = reverse(name, args=args(served_file))
    response = getattr(client_for(role, request), method)(url)
    want = expected[role]
    if want == "login":
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"


@pytest.mark.parametrize("role", ["rival_provider", "outsider"])
def test_non_parties_cannot_upload(role, served_file, request):
    url = reverse("inference:served-list", args=[served_file.reservation_id])
    response = client_for(role, request).post(url, {"file": upload("vllm_bench_serve.json")})
    assert response.status_code == HIDDEN
    assert ServedResponsesFile.objects.count() == 1
