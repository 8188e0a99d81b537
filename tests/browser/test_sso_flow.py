"""Single sign-on in a real browser, against a real OpenID Connect provider on a loopback port
(tests/sso/idp.py): Helix Labs' administrator connects it on the settings page, then Dana
signs in by typing her work address, passes the provider's own login page, and lands in Helix
Labs with the role her groups map to. Someone in no mapped group is told why they are refused."""

from __future__ import annotations

import re

import pytest

from orgs.models import Membership
from tests.sso.conftest import MAPPING
from tests.sso.idp import CLIENT_ID, CLIENT_SECRET, Provider

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def idp():
    with Provider() as provider:
        provider.add(
            "dana", password="dana-pw", email="dana@helix.example", groups=["helix-buyers"]
        )
        yield provider


def _connect(page, live_server, idp):
    page.goto(f"{live_server.url}/org/members/")
    page.click("text=Set up single sign-on")
    page.fill("#id_issuer", idp.issuer)
    page.fill("#id_client_id", CLIENT_ID)
    page.fill("#id_client_secret", CLIENT_SECRET)
    page.fill("#id_email_domains", "helix.example")
    page.fill("#id_group_roles", MAPPING)
    page.click("#sso-save")
    page.wait_for_selector("text=Sign-in through your identity provider is saved.")


def _sign_in_at_provider(page, live_server, who, username, password):
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_who", who)
    page.click("#sso-continue")
    page.wait_for_url(re.compile(r"http://127\.0\.0\.1:\d+/realms/acme/auth.*"))
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("#idp-submit")


def test_sign_in_through_the_organisations_provider(
    live_server, new_page, login_as, buyer, idp, settings
):
    settings.SSO_ALLOW_HTTP_ISSUERS = True
    _connect(login_as(new_page(), buyer.user.get_username()), live_server, idp)

    dana = new_page()
    _sign_in_at_provider(dana, live_server, "dana@helix.example", "dana", "dana-pw")
    dana.wait_for_url(re.compile(r".*/(requests|inbox)/.*"))
    assert "Helix Labs" in dana.inner_text("header")
    dana.goto(f"{live_server.url}/org/members/")
    row = dana.locator("#members tr", has_text="dana@helix.example")
    assert "Requester" in row.inner_text() and "you" in row.inner_text()
    membership = Membership.objects.get(user__email="dana@helix.example")
    assert (membership.organization_id, membership.role) == (buyer.org.pk, "requester")

    idp.add("eve", password="eve-pw", email="eve@helix.example", groups=["marketing"])
    eve = new_page()
    _sign_in_at_provider(eve, live_server, "helix", "eve", "eve-pw")
    eve.wait_for_selector("#sso-refused")
    assert "None of your groups" in eve.inner_text("#sso-refused")
    assert "Ask an administrator of Helix Labs to map one of them." in eve.inner_text("main")


def test_the_sign_in_and_settings_pages_fit_a_phone(live_server, new_page, login_as, buyer, idp):
    """390 px wide without sideways scrolling, the redirect URI and the mapping included."""
    phone = {"width": 390, "height": 844}
    page = new_page(viewport=phone)
    page.goto(f"{live_server.url}/accounts/login/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    admin = login_as(new_page(viewport=phone), buyer.user.get_username())
    admin.goto(f"{live_server.url}/org/sign-in/")
    admin.wait_for_selector("#sso-callback-url")
    assert admin.evaluate("document.documentElement.scrollWidth") <= 390
