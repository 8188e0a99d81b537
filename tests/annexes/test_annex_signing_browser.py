"""Both parties set up a trial signing identity and sign the contract annex in the browser."""

from __future__ import annotations

import pytest

from tests.annexes.signing_helpers import rendered_contract

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _trial_identity(page, base):
    page.goto(f"{base}/org/members/")
    page.click("#signing-identity-panel a")
    page.click("#identity-trial")
    page.wait_for_selector("#identity-trial-mark")


def _sign(page, base, annex):
    page.goto(f"{base}/requests/{annex.request_id}/annexes/")
    page.click(f"#annex-{annex.pk}-signatures")
    page.check("#signing-action input[name=confirm]")
    page.click("#sign-button")
    page.wait_for_selector(".messages >> text=is signed for", state="attached")


def test_buyer_then_provider_sign_and_see_both_validated(live_server, new_page, login_as, awarded):
    annex = rendered_contract(awarded)
    base = live_server.url
    buyer = login_as(new_page(), "alice")
    _trial_identity(buyer, base)
    _sign(buyer, base, annex)
    assert "Intact and trusted." in buyer.locator("#signature-buyer").inner_text()

    provider = login_as(new_page(), "nora")
    _trial_identity(provider, base)
    _sign(provider, base, annex)
    assert "signed by both parties" in provider.locator("#signing-status").inner_text().lower()
    for party in ("buyer", "provider"):
        row = provider.locator(f"#signature-{party}").inner_text()
        assert "Intact" in row and "Chains to a trust root" in row and "not a legal identity" in row
    assert "signer's own clock" in provider.locator("#signing-clock").inner_text()
    with provider.expect_download() as info:
        provider.click("#signed-download")
    with open(info.value.path(), "rb") as handle:
        assert handle.read().startswith(b"%PDF")
