"""An organisation's signing identity: a PKCS#12 it uploads (checked: it opens, has a key and a
certificate fit to sign), or a trial one from this instance's CA, marked as such. The key is
stored encrypted with SIGNING_KEY."""

from __future__ import annotations

from html import unescape as html_unescape

import pytest
from cryptography.fernet import Fernet
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils.html import escape

from audit.models import AuditEntry
from core import secrets
from signing.models import SigningIdentity
from signing.selectors import TRIAL_MARK, identity_current, identity_key
from signing.services import identity_trial, identity_upload
from tests.annexes.signing_helpers import (
    pkcs12_file,
)
from tests.api.v1.conftest import token_client


def _errors(exc: pytest.ExceptionInfo[ValidationError]) -> dict[str, list[str]]:
    return exc.value.message_dict


def test_a_good_pkcs12_becomes_the_identity_with_its_subject_issuer_and_expiry(buyer):
    identity = identity_upload(
        org=buyer.org, user=buyer.user, pkcs12=pkcs12_file(), password="s3cret"
    )
    assert identity_current(org=buyer.org) == identity
    assert identity.subject == "O=Helix Labs,CN=Helix Labs contracts"
    assert identity.issuer == "CN=Helix Corporate CA"
    assert identity.not_after.year >= identity.not_before.year
    assert not identity.is_trial and identity.chain()  # the CA came along in the file
    entry = AuditEntry.objects.get(action="signing.identity_set")
    assert entry.org_id == buyer.org.pk and entry.after["subject"] == identity.subject
    # The key is stored encrypted: not as DER, and only SIGNING_KEY opens it.
    key = identity_key(identity=identity)
    assert key not in bytes(identity.key_encrypted)
    with pytest.raises(secrets.SecretKeyError):
        secrets.decrypt(identity.key_encrypted, what="it", keys=[Fernet.generate_key().decode()])


def test_a_wrong_password_names_the_password_field(buyer):
    with pytest.raises(ValidationError) as exc:
        identity_upload(org=buyer.org, user=buyer.user, pkcs12=pkcs12_file(), password="wrong")
    assert "password" in _errors(exc) and "could not be opened" in _errors(exc)["password"][0]
    assert not SigningIdentity.objects.exists()


def test_a_file_without_a_key_or_unfit_to_sign_is_refused(buyer):
    with pytest.raises(ValidationError) as exc:
        identity_upload(
            org=buyer.org, user=buyer.user, pkcs12=pkcs12_file(with_key=False), password="s3cret"
        )
    assert "holds no private key" in _errors(exc)["pkcs12"][0]
    with pytest.raises(ValidationError) as exc:
        identity_upload(
            org=buyer.org, user=buyer.user, pkcs12=pkcs12_file(sign_usage=False), password="s3cret"
        )
    assert "allows no signing" in _errors(exc)["pkcs12"][0]
    with pytest.raises(ValidationError) as exc:
        identity_upload(org=buyer.org, user=buyer.user, pkcs12=b"not a p12", password="")
    assert "password" in _errors(exc)
    assert not SigningIdentity.objects.exists()


def test_only_an_administrator_sets_the_identity(buyer_approver, buyer):
    with pytest.raises(PermissionDenied):
        identity_trial(org=buyer.org, user=buyer_approver.user)
    with pytest.raises(PermissionDenied):
        identity_upload(
            org=buyer.org, user=buyer_approver.user, pkcs12=pkcs12_file(), password="s3cret"
        )
    assert identity_current(org=buyer.org) is None


def test_a_replaced_identity_is_kept_and_the_new_one_is_current(buyer):
    first = identity_trial(org=buyer.org, user=buyer.user)
    second = identity_upload(
        org=buyer.org, user=buyer.user, pkcs12=pkcs12_file(), password="s3cret"
    )
    first.refresh_from_db()
    assert first.replaced_at is not None and identity_current(org=buyer.org) == second


def test_the_pages_show_the_identity_and_the_trial_marking(buyer, buyer_approver):
    client = buyer.client()
    assert "has no signing identity yet" in client.get(reverse("orgs:members")).content.decode()
    assert client.post(reverse("signing:identity-trial")).status_code == 302
    page = client.get(reverse("signing:identity")).content.decode()
    assert escape(TRIAL_MARK) in page and 'id="identity-expiry"' in page
    assert escape(TRIAL_MARK) in client.get(reverse("orgs:members")).content.decode()
    # An approver reads it but cannot change it.
    page = buyer_approver.client().get(reverse("signing:identity")).content.decode()
    assert 'id="identity-read-only"' in page and 'id="identity-upload"' not in page
    response = buyer_approver.client().post(reverse("signing:identity-trial"))
    assert response.status_code == 403


def test_a_bad_upload_on_the_page_names_the_field(buyer):
    response = buyer.client().post(
        reverse("signing:identity-upload"),
        {"pkcs12": SimpleUploadedFile("helix.p12", pkcs12_file()), "password": "nope"},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="id_password_error"' in html and "could not be opened" in html
    response = buyer.client().post(
        reverse("signing:identity-upload"),
        {"pkcs12": SimpleUploadedFile("helix.p12", pkcs12_file()), "password": "s3cret"},
    )
    assert response.status_code == 302
    page = buyer.client().get(reverse("signing:identity")).content.decode()
    assert "CN=Helix Corporate CA" in page


def test_an_empty_pkcs12_is_named_on_the_page_and_by_the_api(buyer):
    said = "helix.p12: the file is empty; there is nothing to check."
    response = buyer.client().post(
        reverse("signing:identity-upload"),
        {"pkcs12": SimpleUploadedFile("helix.p12", b""), "password": "s3cret"},
    )
    assert response.status_code == 400
    assert said in html_unescape(response.content.decode())
    response = token_client(buyer.user).post(
        "/api/v1/organization/signing-identity/",
        {"pkcs12": SimpleUploadedFile("helix.p12", b""), "password": "s3cret"},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["errors"]["pkcs12"] == [said]


def test_the_api_uploads_and_reads_the_identity(buyer, provider):
    client = token_client(buyer.user)
    url = "/api/v1/organization/signing-identity/"
    assert client.get(url).json() == {"identity": None}
    response = client.post(
        url,
        {"pkcs12": SimpleUploadedFile("helix.p12", pkcs12_file()), "password": "wrong"},
        format="multipart",
    )
    assert response.status_code == 400 and "password" in response.json()["errors"]
    response = client.post(
        url,
        {"pkcs12": SimpleUploadedFile("helix.p12", pkcs12_file()), "password": "s3cret"},
        format="multipart",
    )
    assert response.status_code == 201
    assert response.json()["issuer"] == "CN=Helix Corporate CA"
    assert client.get(url).json()["identity"]["trial"] is False
    # Each organisation reads its own only.
    assert token_client(provider.user).get(url).json() == {"identity": None}
    trial = token_client(provider.user).post(url + "trial/")
    assert trial.status_code == 201 and trial.json()["marking"] == TRIAL_MARK
    assert client.get(url).json()["identity"]["issuer"] == "CN=Helix Corporate CA"
