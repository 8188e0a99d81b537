"""In a real browser: the provider uploads a release canary's evidence from the change page and
reads the verdict; the buyer reads it beside the accepted burn-in and objects before the window."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.acceptance.burnin.helpers import DATA
from tests.delivery.changes.helpers import PASSING, announce, change_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_provider_uploads_the_canary_and_the_buyer_objects(
    live_server, new_page, login_as, buyer, provider, django_capture_on_commit_callbacks
):
    cw = change_world(buyer, provider, django_capture_on_commit_callbacks)
    change = announce(cw, provider)
    url = live_server.url + reverse("delivery:change-detail", args=[change.pk])
    errors: list[str] = []

    nora = login_as(new_page(), "nora")
    nora.on("pageerror", lambda exc: errors.append(str(exc)))
    nora.goto(url)
    for node in ("", "gpu-a01", "gpu-a02"):
        nora.set_input_files("#upload input[type=file]", [str(DATA / n) for n, at in PASSING
                                                          if at == node])  # fmt: skip
        nora.fill("#upload input[name=node]", node)
        nora.click("#upload button[type=submit]")
        nora.wait_for_load_state()
    nora.wait_for_selector("#verdict .status-pass")
    assert "passed" in nora.inner_text("#verdict")

    alice = login_as(new_page(), "alice")
    alice.on("pageerror", lambda exc: errors.append(str(exc)))
    alice.goto(url)
    assert "passed" in alice.inner_text("#verdict")
    assert "Accepted burn-in" in alice.inner_text("#comparison")
    assert alice.locator("#upload").count() == 0
    alice.fill("#object-form textarea[name=reason]", "A training run is mid-epoch that night.")
    alice.click("#object-form button[type=submit]")
    alice.wait_for_selector("text=Your objection is on the record.")
    assert "Declined" in alice.inner_text("#change-terms")
    assert "mid-epoch" in alice.inner_text("#change-terms")
    assert not errors
