"""The signatures page and the API: sign, then read each signature's validation back."""

from __future__ import annotations

import hashlib

import pytest
from cryptography.fernet import Fernet
from django.core.files.base import ContentFile
from django.urls import reverse
from django.utils.html import escape

from annexes.signing import signing_state
from signing.selectors import TRIAL_MARK
from signing.services import identity_trial
from tests.annexes.signing_helpers import approver_of, rendered_contract
from tests.api.v1.conftest import token_client


@pytest.fixture
def signable(awarded, buyer, provider):
    identity_trial(org=buyer.org, user=buyer.user)
    identity_trial(org=provider.org, user=provider.user)
    return rendered_contract(awarded)


def test_both_approvers_sign_on_the_page_and_it_shows_the_validation(
    signable, awarded, buyer_approver, buyer_requester, provider, django_assert_max_num_queries
):
    page = reverse("annexes:signatures", args=[signable.pk])
    requester = buyer_requester.client().get(page).content.decode()
    assert 'id="signing-refused"' in requester and "needs the role" in requester
    provider_approver = approver_of(provider.org, "pia")
    early = provider_approver.client().get(page).content.decode()
    assert "awaiting the buyer" in early and 'id="sign-button"' not in early

    client = buyer_approver.client()
    html = client.get(page).content.decode()
    assert 'id="sign-button"' in html and "signer&#x27;s own clock" in html
    # Without the confirmation nothing is signed.
    client.post(reverse("annexes:sign", args=[signable.pk]))
    assert signing_state(annex=signable).signatures == ()
    response = client.post(reverse("annexes:sign", args=[signable.pk]), {"confirm": "on"})
    assert response.status_code == 302
    listing = client.get(reverse("annexes:list", args=[awarded.request.pk])).content.decode()
    assert "Signed (1 of 2)" in listing

    provider_client = provider_approver.client()
    assert 'id="sign-button"' in provider_client.get(page).content.decode()
    provider_client.post(reverse("annexes:sign", args=[signable.pk]), {"confirm": "on"})
    with django_assert_max_num_queries(20):
        html = provider_client.get(page).content.decode()
    assert "signed by both parties" in html.lower() and "This version is final" in html
    assert html.count("Chains to a trust root") == 2 and html.count(">Intact<") == 2
    assert html.count(escape(TRIAL_MARK)) >= 2
    download = provider_client.get(reverse("annexes:signed-download", args=[signable.pk]))
    body = b"".join(download.streaming_content)
    assert body.startswith(b"%PDF") and hashlib.sha256(body).hexdigest() in html

    # One byte changed in storage: the page says the document was modified.
    last = signing_state(annex=signable).signatures[-1]
    at = body.index(b"stream") + 40
    changed = body[:at] + bytes([body[at] ^ 1]) + body[at + 1 :]
    last.pdf.storage.delete(last.pdf.name)
    last.pdf.storage.save(last.pdf.name, ContentFile(changed))
    html = provider_client.get(page).content.decode()
    assert 'id="signing-stored-changed"' in html and html.count(">Modified<") == 2


def test_the_api_signs_and_reports_the_validation(signable, buyer_approver, provider):
    provider_approver = approver_of(provider.org, "pia")
    buyer_api = token_client(buyer_approver.user)
    url = f"/api/v1/annexes/{signable.pk}/"
    assert buyer_api.get(url + "signatures/").json()["status"] == "unsigned"
    refused = buyer_api.post(url + "sign/", {}, format="json")
    assert refused.status_code == 400 and "confirm" in refused.json()["errors"]
    assert (
        token_client(provider_approver.user)
        .post(url + "sign/", {"confirm": True}, format="json")
        .status_code
        == 409
    )  # the buyer signs first
    signed = buyer_api.post(url + "sign/", {"confirm": True}, format="json")
    assert signed.status_code == 201 and signed.json()["status"] == "buyer_signed"
    done = token_client(provider_approver.user).post(
        url + "sign/", {"confirm": True}, format="json"
    )
    report = done.json()
    assert report["status"] == "signed" and report["final"] and report["all_ok"]
    assert [s["party"] for s in report["signatures"]] == ["buyer", "provider"]
    for sig in report["signatures"]:
        assert sig["document_state"] == "intact" and sig["trusted"] and sig["trial"]
        assert sig["marking"] == TRIAL_MARK and sig["signed_at"]
    assert "signer's own clock" in report["clock_note"]
    pdf = buyer_api.get(report["signed_pdf_url"])
    assert (
        hashlib.sha256(b"".join(pdf.streaming_content)).hexdigest() == report["signed_pdf_sha256"]
    )


def test_a_signing_key_no_configured_key_opens_is_told_not_a_500(
    signable, buyer_approver, settings
):
    """SIGNING_KEY changed without listing the old one in SIGNING_KEY_PREVIOUS."""
    settings.SIGNING_KEYS = [Fernet.generate_key().decode()]
    page = buyer_approver.client().post(
        reverse("annexes:sign", args=[signable.pk]), {"confirm": "on"}, follow=True
    )
    assert page.status_code == 200
    assert "The server cannot read the signing key of Helix Labs" in page.content.decode()
    api = token_client(buyer_approver.user).post(
        f"/api/v1/annexes/{signable.pk}/sign/", {"confirm": True}, format="json"
    )
    assert api.status_code == 503 and "SIGNING_KEY_PREVIOUS" in api.json()["detail"]
    assert signing_state(annex=signable).signatures == ()
