"""The comparison page on reload: its forms still post, a write shows at once, a waiting message
still shows, and nobody else is served the buyer's page."""

from __future__ import annotations

import re

import pytest
from django.contrib.messages import constants
from django.contrib.messages.storage.base import Message
from django.contrib.messages.storage.cookie import CookieStorage
from django.http import HttpRequest
from django.test import Client
from django.urls import reverse

from bids.models import CapacityRequest

pytestmark = pytest.mark.django_db(transaction=True)


def _url(world) -> str:
    return reverse("evaluation:request-compare", args=[world.request.pk])


def _token(html: str) -> str:
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert found, "the page has a form"
    return found.group(1)


def test_a_reloads_forms_still_post(scored, buyer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(buyer.user)
    client.get(_url(scored))  # the first visit sets the CSRF cookie
    again = client.get(_url(scored)).content.decode()
    assert "Northwind" in again
    posted = client.post(
        reverse("evaluation:request-compare", args=[scored.request.pk]).replace(
            "compare/", "compare/rescore/"
        ),
        {"csrfmiddlewaretoken": _token(again)},
    )
    assert posted.status_code == 302  # not 403: the token belongs to this session


def test_a_write_shows_on_the_next_load(scored, buyer):
    client = buyer.client()
    client.get(_url(scored))
    CapacityRequest.objects.filter(pk=scored.request.pk).update(title="Renamed by a script")
    assert "Renamed by a script" in client.get(_url(scored)).content.decode()


def test_a_waiting_message_is_shown_once(scored, buyer):
    client = buyer.client()
    client.get(_url(scored))
    client.get(_url(scored))
    flash = CookieStorage(HttpRequest())
    client.cookies["messages"] = flash._encode([Message(constants.SUCCESS, "Weights saved.")])
    assert "Weights saved." in client.get(_url(scored)).content.decode()
    assert "Weights saved." not in client.get(_url(scored)).content.decode()  # shown once


def test_nobody_else_is_served_the_buyers_copy(scored, buyer, provider, outsider):
    client = buyer.client()
    client.get(_url(scored))
    client.get(_url(scored))
    for other in (provider, outsider):
        response = other.client().get(_url(scored))
        assert response.status_code in (302, 403, 404)
        assert "Rival Cloud" not in response.content.decode()
