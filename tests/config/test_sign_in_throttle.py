"""Sign-in is throttled per account and per address, and passwords meet Django's four checks."""

from __future__ import annotations

import pytest
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from tests.conftest import clear_cache
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_earlier_failures():
    clear_cache()
    yield
    clear_cache()


def _sign_in(client: Client, username: str, password: str, address: str = "10.0.0.1") -> str:
    response = client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )
    return response.content.decode() if response.status_code != 302 else "signed in"


def test_the_right_password_is_refused_after_repeated_failures(buyer, settings):
    client = Client()
    name = buyer.user.get_username()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        assert _sign_in(client, name, "wrong-password", address="10.0.0.7") != "signed in"
    # Another address, the right password: the account itself is paused.
    page = _sign_in(Client(), name, PASSWORD, address="10.9.9.9")
    assert 'id="locked-out"' in page and "Sign-in paused" in page


def test_one_address_guessing_many_accounts_is_paused(buyer, provider, settings):
    client = Client()
    for i in range(settings.AXES_FAILURE_LIMIT):
        _sign_in(client, f"nobody-{i}", "wrong-password", address="10.0.0.8")
    page = _sign_in(Client(), provider.user.get_username(), PASSWORD, address="10.0.0.8")
    assert 'id="locked-out"' in page
    # From elsewhere the same person signs in as usual.
    assert _sign_in(Client(), provider.user.get_username(), PASSWORD, "10.0.0.9") == "signed in"


def test_a_few_mistakes_then_the_right_password_signs_in(buyer):
    client = Client()
    name = buyer.user.get_username()
    for _ in range(3):
        assert 'id="locked-out"' not in _sign_in(client, name, "wrong-password")
    assert _sign_in(client, name, PASSWORD) == "signed in"


@pytest.mark.parametrize(
    ("password", "why"),
    [
        ("short1", "too short"),
        ("password123", "too common"),
        ("7364918273645", "entirely numeric"),
    ],
)
def test_weak_passwords_are_refused_with_the_reason(buyer, password, why):
    with pytest.raises(ValidationError, match=why):
        validate_password(password, user=buyer.user)
