"""Sign-in is throttled per (account, address) pair, so nobody can lock out someone else, and
passwords meet Django's four checks."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from axes.models import AccessAttempt, AccessAttemptExpiration
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

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


def _same_page(page: str, username: str) -> str:
    """The page with the typed username and the per-response CSRF token taken out."""
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", page).replace(username, "X")


def test_the_right_password_is_refused_from_the_address_that_failed(buyer, settings):
    client = Client()
    name = buyer.user.get_username()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        assert _sign_in(client, name, "wrong-password", address="10.0.0.7") != "signed in"
    page = _sign_in(Client(), name, PASSWORD, address="10.0.0.7")
    assert 'id="locked-out"' in page and "Sign-in paused" in page


def test_the_pause_grows_while_someone_keeps_trying(buyer, settings):
    name = buyer.user.get_username()
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _sign_in(client, name, "wrong-password", address="10.0.0.13")
    assert "paused for 15 min" in _sign_in(client, name, PASSWORD, address="10.0.0.13")
    for _ in range(2 * settings.AXES_FAILURE_LIMIT):  # tries while paused count too
        _sign_in(client, name, "wrong-password", address="10.0.0.13")
    assert "paused for 1 h," in _sign_in(client, name, PASSWORD, address="10.0.0.13")
    # Twenty minutes of quiet would end a first pause, not this one.
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=20))
    assert 'id="locked-out"' in _sign_in(client, name, PASSWORD, address="10.0.0.13")
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=61))
    AccessAttemptExpiration.objects.update(expires_at=timezone.now() - timedelta(minutes=1))
    assert _sign_in(client, name, PASSWORD, address="10.0.0.13") == "signed in"


def test_an_attackers_thousand_failures_lock_out_nobody_else(buyer, provider):
    """1,000 wrong passwords from one address, for made-up usernames and for the victim's."""
    attacker = Client()
    victim = buyer.user.get_username()
    for i in range(500):
        _sign_in(attacker, f"nobody-{i}", "wrong-password", address="10.6.6.6")
        _sign_in(attacker, victim, f"guess-{i}", address="10.6.6.6")
    # Another user, from the attacker's own address (a shared proxy) and from elsewhere.
    other = provider.user.get_username()
    assert _sign_in(Client(), other, PASSWORD, address="10.6.6.6") == "signed in"
    assert _sign_in(Client(), other, PASSWORD, address="10.0.0.9") == "signed in"
    # The victim, from a new address.
    assert _sign_in(Client(), victim, PASSWORD, address="10.0.0.10") == "signed in"


def test_the_pause_says_nothing_about_whether_the_account_exists(buyer, settings):
    pages = {}
    for name in (buyer.user.get_username(), "no-such-person"):
        for _ in range(settings.AXES_FAILURE_LIMIT):
            _sign_in(Client(), name, "wrong-password", address="10.0.0.11")
        pages[name] = _sign_in(Client(), name, "wrong-password", address="10.0.0.11")
    real, made_up = pages.values()
    assert 'id="locked-out"' in real and 'id="locked-out"' in made_up
    assert _same_page(real, buyer.user.get_username()) == _same_page(made_up, "no-such-person")


def test_a_wrong_password_reads_the_same_for_real_and_made_up_accounts(buyer):
    real = _sign_in(Client(), buyer.user.get_username(), "wrong-password", address="10.0.0.12")
    made_up = _sign_in(Client(), "no-such-person", "wrong-password", address="10.0.0.12")
    assert "correct username and password" in real
    assert _same_page(real, buyer.user.get_username()) == _same_page(made_up, "no-such-person")


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
