"""With DEBUG off, people meet the product's own 400, 403, 404 and 500 pages (and its own page for
an expired form), never Django's debug pages; API paths keep their JSON 404."""

from __future__ import annotations

from typing import NoReturn

import pytest
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.test import Client
from django.urls import include, path
from django.urls import reverse as url_for

pytestmark = pytest.mark.django_db


def _boom(request: HttpRequest) -> NoReturn:
    raise RuntimeError("a bug")


def _refuse(request: HttpRequest) -> NoReturn:
    raise PermissionDenied


# A URL conf for the 500 and 403 tests: the real routes plus views that fail and refuse.
urlpatterns = [
    path("boom/", _boom),
    path("refuse/", _refuse),
    path("", include("config.urls")),
]
handler404 = "api.errors.not_found"


@pytest.fixture(autouse=True)
def debug_off(settings):
    settings.DEBUG = False


def test_a_missing_page_shows_the_products_404(client):
    response = client.get("/no-such-page/")
    html = response.content.decode()
    assert response.status_code == 404
    assert 'id="not-found"' in html and "Clusterbid" in html
    assert "Page not found (404)" not in html and "URLconf" not in html


def test_a_signed_in_user_sees_the_404_inside_the_product(world, outsider):
    response = outsider.client().get(url_for("bids:bid-detail", args=[world.bid.pk]))
    html = response.content.decode()
    assert response.status_code == 404 and 'id="not-found"' in html
    assert outsider.user.get_username() in html  # the top bar, as on every page


def test_api_paths_keep_the_json_404(client):
    response = client.get("/api/v1/no-such-thing/")
    assert response.status_code == 404 and response.json()["detail"].startswith("Not found")


def test_a_server_error_shows_the_products_500_without_the_traceback(settings):
    settings.ROOT_URLCONF = __name__
    response = Client(raise_request_exception=False).get("/boom/")
    html = response.content.decode()
    assert response.status_code == 500 and 'id="server-error"' in html
    assert "RuntimeError" not in html and "Traceback" not in html


def test_a_refusal_shows_the_products_403(settings, buyer):
    settings.ROOT_URLCONF = __name__
    response = buyer.client().get("/refuse/")
    html = response.content.decode()
    assert response.status_code == 403 and 'id="forbidden"' in html
    assert "alice" in html  # inside the product, with its top bar


def test_an_expired_form_says_so_in_the_products_words(buyer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(buyer.user)
    response = client.post(
        url_for("orgs:members"), {"email": "bob@example.com", "role": "approver"}
    )
    html = response.content.decode()
    assert response.status_code == 403 and 'id="form-expired"' in html
    assert "CSRF verification failed" not in html and "DEBUG=True" not in html


def test_an_unknown_host_gets_the_products_400(client):
    response = client.get("/", HTTP_HOST="clusterbid.evil.example")
    html = response.content.decode()
    assert response.status_code == 400 and 'id="bad-request"' in html
