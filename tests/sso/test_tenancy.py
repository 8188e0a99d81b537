"""Who reaches the single sign-on routes. The settings page always acts for the acting
organisation, so every administrator reads and changes only their own organisation's; the
sign-in routes are for people not yet signed in."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests import tenancy_registry
from tests.bids.test_tenancy import LOGIN, OK, ROLES, client_for
from tests.sso.conftest import connection_input

EVERY_ADMIN = {**dict.fromkeys(ROLES, OK), "anonymous": LOGIN}
# The start (a POST: the address never goes in a URL) answers 400 for an address no
# organisation signs in with; the callback 400 for a state this browser did not start. The
# SCIM endpoints take a bearer token, never a session: 401 to everyone signed in. A SCIM token
# needs a connection first, which none of them has.
ROUTES = {
    "sso:settings": ("get", [], EVERY_ADMIN),
    "sso:start": ("post", [], dict.fromkeys(ROLES, 400)),
    "sso:callback": ("get", [], dict.fromkeys(ROLES, 400)),
    "sso:scim-token": ("post", [], {**dict.fromkeys(ROLES, 302), "anonymous": LOGIN}),
    "sso:scim-users": ("get", [], dict.fromkeys(ROLES, 401)),
    "sso:scim-user": ("get", [1], dict.fromkeys(ROLES, 401)),
}
tenancy_registry.register(*ROUTES)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_route_gives_each_role_what_it_may_see(name, role, buyer, buyer_colleague, request):
    method, args, expected = ROUTES[name]
    data = {"who": "x@nowhere.example"} if name in ("sso:start", "sso:callback") else {}
    response = getattr(client_for(role, request), method)(reverse(name, args=args), data)
    want = expected[role]
    if want == LOGIN:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == want, f"{name} as {role}"


def test_each_administrator_sees_only_their_own_organisations_connection(
    idp, buyer, provider, outsider
):
    from sso.services import connection_save

    connection_save(org=buyer.org, user=buyer.user, data=connection_input(idp))
    for other in (provider, outsider):
        page = other.client().get(reverse("sso:settings")).content.decode()
        assert idp.issuer not in page and "helix.example" not in page
    forged = provider.client().post(
        reverse("sso:settings"), {"organization": buyer.org.pk, "client_id": "x"}
    )
    assert forged.status_code == 400  # its own, incomplete form: Helix Labs' is untouched
    assert buyer.org.oidc_connection.client_id == "clusterbid"


def test_a_callback_for_another_browsers_sign_in_never_signs_this_one_in(idp, buyer):
    from sso.services import connection_save

    connection_save(org=buyer.org, user=buyer.user, data=connection_input(idp))
    started = Client()
    start = started.post(reverse("sso:start"), {"who": "helix"})
    state = start["Location"].split("state=")[1].split("&")[0]
    other = Client()
    answer = other.get(reverse("sso:callback"), {"code": "c", "state": state})
    assert answer.status_code == 400 and "_auth_user_id" not in other.session
