"""Who reaches the pilot routes: the buyer's members and the invited provider; the rival
provider (shortlisted too) and outsiders get 404 everywhere, downloads included. The buyer
alone invites and chooses how scoring reads the pilots."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

from tests import tenancy_registry
from tests.acceptance.pilot.helpers import invite, run_pilot, shortlist_both
from tests.bids.test_tenancy import HIDDEN, LOGIN, OK, REDIRECT, ROLES, _only, client_for

PARTIES_GET = _only({"buyer": OK, "buyer_colleague": OK, "provider": OK})
PARTIES_POST = _only({"buyer": REDIRECT, "buyer_colleague": REDIRECT, "provider": REDIRECT})
BUYERS_POST = _only({"buyer": REDIRECT, "buyer_colleague": REDIRECT})
# An empty invitation comes back to the buyer with its errors, on the comparison page.
BUYERS_FORM = _only({"buyer": 400, "buyer_colleague": 400})
EVERY_MEMBER = {**dict.fromkeys(ROLES, OK), "anonymous": LOGIN}

ROUTES: dict[str, tuple[str, Callable[[Any], list[Any]], dict[str, Any]]] = {
    "pilots:list": ("get", lambda w: [], EVERY_MEMBER),
    "pilots:detail": ("get", lambda w: [w.pilot.pk], PARTIES_GET),
    "pilots:status": ("get", lambda w: [w.pilot.pk], PARTIES_GET),
    "pilots:upload": ("post", lambda w: [w.pilot.pk], PARTIES_GET),
    "pilots:recheck": ("post", lambda w: [w.pilot.pk], PARTIES_POST),
    "pilots:evidence-download": ("get", lambda w: [w.evidence.pk], PARTIES_GET),
    "pilots:evidence-retry": ("post", lambda w: [w.evidence.pk], PARTIES_POST),
    "pilots:evidence-withdraw": ("post", lambda w: [w.evidence.pk], PARTIES_POST),
    "evaluation:request-pilot-invite": (
        "post",
        lambda w: [w.request.pk, w.rival_bid.pk],
        BUYERS_FORM,
    ),
    "evaluation:request-pilot-scoring": ("post", lambda w: [w.request.pk], BUYERS_POST),
}
tenancy_registry.register(*ROUTES)


@pytest.fixture
def media(settings: Any, tmp_path: Any) -> None:
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def piloted(world, buyer, provider, media, django_capture_on_commit_callbacks) -> Any:
    shortlist_both(world, buyer)
    world.pilot = invite(world.bid, buyer)
    (world.evidence,) = run_pilot(
        world.pilot,
        provider.user,
        django_capture_on_commit_callbacks,
        [("perftest/ib_write_bw_two_hcas_mlx5_1_at_198gbits.txt", "gpu-a01")],
    )
    return world


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_route_gives_each_role_what_it_may_see(name, role, piloted, request):
    method, args, expected = ROUTES[name]
    response = getattr(client_for(role, request), method)(reverse(name, args=args(piloted)))
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"


def test_only_the_parties_list_the_pilot(piloted, request):
    url = reverse("pilots:list")
    link = reverse("pilots:detail", args=[piloted.pilot.pk])
    for role, sees in [
        ("buyer", True),
        ("provider", True),
        ("rival_provider", False),
        ("outsider", False),
    ]:
        html = client_for(role, request).get(url).content.decode()
        assert (link in html) is sees, role


FIGURE = re.compile(r"(?<![\w-])198(?:\.\d+)?(?![\w-])")


def test_a_rival_never_reads_the_verified_figures(piloted, request):
    """Not on its own pages: the request page, its bid, its pilot list, its notices."""
    rival = client_for("rival_provider", request)
    pages = [
        reverse("bids:request-detail", args=[piloted.request.pk]),
        reverse("bids:bid-detail", args=[piloted.rival_bid.pk]),
        reverse("pilots:list"),
        reverse("notices:list"),
    ]
    for url in pages:
        html = rival.get(url).content.decode()
        # The figure as a number (198.46 Gb/s), never the digits inside a notice's UUID.
        assert not FIGURE.search(html) and "verified" not in html.lower(), url
    assert rival.get(reverse("pilots:detail", args=[piloted.pilot.pk])).status_code == HIDDEN
