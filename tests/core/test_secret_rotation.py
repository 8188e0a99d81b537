"""Changing SIGNING_KEY: the key it replaced, listed in SIGNING_KEY_PREVIOUS, still opens every
stored secret; `manage.py reencrypt_secrets` moves them all to the new key, after which the old
one can go; and a secret that no configured key opens is a sentence saying what to do, never a
500."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from cryptography.fernet import Fernet
from django.contrib.auth.models import AnonymousUser
from django.core.management import CommandError, call_command
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse

from core.middleware import SecretKeyErrorMiddleware
from core.secrets import SecretKeyError, decrypt, encrypt
from signing.models import InstanceCA, SigningIdentity
from signing.selectors import identity_key
from signing.services import identity_trial
from sso import selectors as sso_selectors
from tests.sso.conftest import _http_issuers, helix_sso, idp, sign_in  # noqa: F401 (fixtures)
from tests.sso.idp import CLIENT_SECRET
from tests.webhooks.conftest import subscribe
from webhooks.models import Endpoint
from webhooks.services import endpoint_rotate_secret, secrets_in_force
from webhooks.services.endpoints import routing_key

pytestmark = pytest.mark.django_db

NEW = Fernet.generate_key().decode()
PAGERDUTY = "https://events.pagerduty.com/v2/enqueue"


def _readable(identity, connection, endpoint):
    """Every kind of stored secret, read the way the product reads it."""
    identity.refresh_from_db()
    connection.refresh_from_db()
    endpoint.refresh_from_db()
    return (
        len(identity_key(identity=identity)) > 0,
        sso_selectors.client_secret(connection),
        len(secrets_in_force(endpoint=endpoint)),
        routing_key(endpoint=endpoint),
    )


def test_the_old_key_opens_until_the_command_moves_every_secret_to_the_new_one(
    settings,
    buyer,
    helix_sso,  # noqa: F811
):
    old = settings.SIGNING_KEYS[0]
    identity = identity_trial(org=buyer.org, user=buyer.user)
    endpoint, _ = subscribe(
        buyer, PAGERDUTY, "incident_opened", payload_format="pagerduty", routing_key="R" * 32
    )
    endpoint_rotate_secret(endpoint=endpoint, user=buyer.user)  # a previous secret too
    before = _readable(identity, helix_sso, endpoint)
    assert before == (True, CLIENT_SECRET, 2, "R" * 32)

    settings.SIGNING_KEYS = [NEW, old]  # SIGNING_KEY=new, SIGNING_KEY_PREVIOUS=old
    assert _readable(identity, helix_sso, endpoint) == before
    out = StringIO()
    call_command("reencrypt_secrets", stdout=out)
    report = out.getvalue()
    assert "signing.SigningIdentity.key_encrypted: 1 re-encrypted" in report
    assert "signing.InstanceCA.key_encrypted: 1 re-encrypted" in report
    assert "sso.OidcConnection.client_secret_encrypted: 1 re-encrypted" in report
    assert "webhooks.Endpoint.previous_secret_token: 1 re-encrypted" in report
    assert "webhooks.Endpoint.routing_key_token: 1 re-encrypted" in report
    assert "SIGNING_KEY_PREVIOUS can be emptied" in report

    settings.SIGNING_KEYS = [NEW]  # the old key is gone: everything still opens
    assert _readable(identity, helix_sso, endpoint) == before
    call_command("reencrypt_secrets", stdout=StringIO())  # again: harmless
    assert _readable(identity, helix_sso, endpoint) == before
    with pytest.raises(SecretKeyError, match="cannot read the CA"):
        decrypt(InstanceCA.objects.get().key_encrypted, what="the CA", keys=[old])


def test_a_key_changed_without_listing_the_old_one_is_told_in_words(settings, buyer):
    identity_trial(org=buyer.org, user=buyer.user)
    settings.SIGNING_KEYS = [NEW]
    page = buyer.client().post(reverse("signing:identity-trial"), follow=True)
    assert page.status_code == 200
    text = page.content.decode()
    assert "The server cannot read the private key of the trial CA" in text
    assert "SIGNING_KEY_PREVIOUS" in text
    assert SigningIdentity.objects.count() == 1  # nothing was replaced

    with pytest.raises(CommandError, match="2 stored secret\\(s\\) were left as they are"):
        call_command("reencrypt_secrets", stdout=StringIO())


def test_a_sign_in_whose_client_secret_cannot_be_read_says_so(settings, idp, helix_sso):  # noqa: F811
    settings.SIGNING_KEYS = [NEW]
    refused = sign_in(Client(), "dana", "dana-pw")
    assert refused.status_code == 503
    text = refused.content.decode()
    assert "The server cannot read the single sign-on client secret of Helix Labs" in text
    assert "_auth_user_id" not in refused.wsgi_request.session


def test_a_pagerduty_routing_key_is_stored_only_encrypted(buyer):
    endpoint, _ = subscribe(
        buyer, PAGERDUTY, "incident_opened", payload_format="pagerduty", routing_key="R" * 32
    )
    stored = Endpoint.objects.get(pk=endpoint.pk)
    assert b"R" * 32 not in bytes(stored.routing_key_token)
    assert routing_key(endpoint=stored) == "R" * 32


def test_an_unreadable_secret_no_view_catches_is_a_503_in_words(rf):
    """The safety net under every page and the API: never Django's 500."""
    token = encrypt(b"x", keys=[Fernet.generate_key().decode()])
    with pytest.raises(SecretKeyError) as unreadable:
        decrypt(token, what="the thing", keys=[NEW])
    middleware = SecretKeyErrorMiddleware(lambda request: HttpResponse())
    page_request = rf.get("/somewhere/")
    page_request.user = AnonymousUser()
    page = middleware.process_exception(page_request, unreadable.value)
    assert page is not None and page.status_code == 503
    assert "The server cannot read the thing" in page.content.decode()
    api = middleware.process_exception(rf.get("/api/v1/x/"), unreadable.value)
    assert api is not None and api.status_code == 503
    assert "SIGNING_KEY_PREVIOUS" in json.loads(api.content)["detail"]
    assert middleware.process_exception(page_request, ValueError("other")) is None
