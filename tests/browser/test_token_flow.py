"""An API token in a real browser: shown once after creating it, gone after a reload, and the
reload does not post the form again (no second token)."""

from __future__ import annotations

import pytest

from api.models import ApiToken

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_reload_shows_the_list_not_the_secret_and_mints_nothing(
    live_server, new_page, login_as, buyer
):
    page = login_as(new_page(), buyer.user.get_username())
    page.goto(f"{live_server.url}/account/tokens/")
    page.fill("#id_name", "gpu-a01 upload")
    page.click("text=Create token")
    secret = page.inner_text("#token-secret")
    assert secret.startswith(ApiToken.objects.get().prefix)
    page.reload()
    page.wait_for_selector("text=Create a token")
    assert secret not in page.content()
    assert ApiToken.objects.count() == 1
