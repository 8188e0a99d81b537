"""API tokens: stored hashed, shown once, revocable, and their use recorded."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from api.models import ApiToken
from api.services import token_create, token_revoke

pytestmark = pytest.mark.django_db


def test_only_the_hash_and_a_prefix_are_stored(buyer):
    token, secret = token_create(user=buyer.user, name="cluster")
    assert token.digest == hashlib.sha256(secret.encode()).hexdigest()
    assert secret.startswith(token.prefix) and len(token.prefix) == 8
    stored = ApiToken.objects.values_list(*[f.attname for f in ApiToken._meta.fields]).get()
    assert secret not in [str(v) for v in stored]


def test_the_secret_is_shown_once_and_kept_nowhere(buyer):
    client = buyer.client()
    url = reverse("api:token-list")
    created = client.post(url, {"name": "gpu-a01 upload"})
    assert created.status_code == 200 and created["Cache-Control"] == "no-store"
    secret = created.context["new_secret"]
    assert secret and secret in created.content.decode()
    # Not in the session table (readable without the secret key), nor on the next page.
    for session in Session.objects.all():
        assert secret not in json.dumps(session.get_decoded())
        assert secret not in session.session_data
    again = client.get(url).content.decode()
    assert secret not in again and ApiToken.objects.get().prefix in again


def test_a_token_needs_a_name(buyer):
    response = buyer.client().post(reverse("api:token-list"), {"name": ""})
    assert response.status_code == 200 and 'id="id_name_error"' in response.content.decode()
    assert not ApiToken.objects.exists()


def test_a_token_authenticates_and_records_its_use(awarded, provider):
    token, secret = token_create(user=provider.user, name="cluster")
    url = reverse("api:run-evidence", args=[awarded.run.pk])
    response = Client().get(url, HTTP_AUTHORIZATION=f"Token {secret}")
    assert response.status_code == 200
    token.refresh_from_db()
    assert token.last_used_at is not None
    assert timezone.now() - token.last_used_at < timedelta(seconds=5)


def test_bearer_reads_as_token_and_another_scheme_is_refused_by_name(awarded, provider):
    _, secret = token_create(user=provider.user, name="cluster")
    url = reverse("api:run-evidence", args=[awarded.run.pk])
    assert Client().get(url, HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 200
    refused = Client().get(url, HTTP_AUTHORIZATION="Basic YXJ1bjpwdw==")
    assert refused.status_code == 401
    assert "scheme 'Basic' is not accepted" in refused.json()["detail"]


def test_a_token_in_steady_use_is_written_once_a_minute(awarded, provider):
    token, secret = token_create(user=provider.user, name="cluster")
    url = reverse("api:run-evidence", args=[awarded.run.pk])
    client = Client(HTTP_AUTHORIZATION=f"Token {secret}")
    assert client.get(url).status_code == 200
    token.refresh_from_db()
    first = token.last_used_at
    assert client.get(url).status_code == 200  # within the minute: no second write
    token.refresh_from_db()
    assert token.last_used_at == first
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=first - timedelta(minutes=2))
    assert client.get(url).status_code == 200
    token.refresh_from_db()
    assert token.last_used_at > first


def test_a_deactivated_users_token_is_401(awarded, provider):
    _, secret = token_create(user=provider.user, name="cluster")
    provider.user.is_active = False
    provider.user.save(update_fields=["is_active"])
    url = reverse("api:run-evidence", args=[awarded.run.pk])
    assert Client().get(url, HTTP_AUTHORIZATION=f"Token {secret}").status_code == 401


@pytest.mark.parametrize("header", ["Token nope", "Token", "Token a b", "Bearer x"])
def test_a_bad_or_missing_token_is_401(awarded, header):
    url = reverse("api:run-evidence", args=[awarded.run.pk])
    response = Client().get(url, HTTP_AUTHORIZATION=header)
    assert response.status_code == 401


def test_a_revoked_token_is_401(awarded, provider):
    token, secret = token_create(user=provider.user, name="cluster")
    token_revoke(token=token)
    url = reverse("api:run-evidence", args=[awarded.run.pk])
    assert Client().get(url, HTTP_AUTHORIZATION=f"Token {secret}").status_code == 401


def test_revoking_from_the_page(buyer):
    token, _ = token_create(user=buyer.user, name="old laptop")
    client = buyer.client()
    response = client.post(reverse("api:token-revoke", args=[token.pk]), follow=True)
    assert "is revoked" in response.content.decode()
    token.refresh_from_db()
    assert token.revoked_at is not None


def test_nobody_revokes_another_persons_token(buyer, buyer_colleague):
    token, _ = token_create(user=buyer.user, name="mine")
    response = buyer_colleague.client().post(reverse("api:token-revoke", args=[token.pk]))
    assert response.status_code == 404
    token.refresh_from_db()
    assert token.revoked_at is None
