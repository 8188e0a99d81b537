"""The demo as `make run` serves it: DEBUG off with the Makefile's settings, the seeded data, each
demo user signed in with the demo password. Whatever they open (pages reached by following the
links, a mistyped address, another organisation's object) is never Django's debug page, and every
error is the product's own page. A member of two organisations lands in the right one."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from collections import deque
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from bids.models import Bid
from config.env import env_bool
from demo.seed import DEMO_PASSWORD, REQUEST_TITLE
from orgs.choices import MemberRole
from orgs.models import Membership, Organization

ROOT = Path(__file__).resolve().parents[2]
DEBUG_PAGE = (
    "Page not found (404)",
    "URLconf",
    "Traceback",
    "You’re seeing this error because",
    "You're seeing this error because",
    "DEBUG = True",
    "Exception Value",
)
LINK = re.compile(r'href="(/[^"#]*)"')
# Not pages: files, Django's admin, the API's documentation bundles, signing out.
SKIP = re.compile(r"^/(static|media|admin|api/v1/(docs|redoc|schema))/|logout|\.(pdf|csv|xlsx)$")
SKIP_FILES = re.compile(r"/(bundle|export|download|pdf)(/|\.|$)")
PAGES_PER_USER = 40


def makefile_demo_env() -> dict[str, str]:
    """The defaults `make run` gives each setting (`NAME=$${NAME:-value}` in DEMO_ENV)."""
    text = (ROOT / "Makefile").read_text()
    block = re.search(r"^DEMO_ENV = (.*?[^\\])$", text, re.MULTILINE | re.DOTALL)
    assert block, "the Makefile's DEMO_ENV is gone"
    return dict(re.findall(r"(\w+)=\$\$\{\w+:-(\w*)\}", block.group(1)))


def test_make_run_turns_debug_off_for_plain_http_with_a_local_key():
    env = makefile_demo_env()
    assert env == {
        "DEBUG": "false",
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
    }
    makefile = (ROOT / "Makefile").read_text()
    key_file = re.search(r"^DEMO_KEY := (\S+)$", makefile, re.MULTILINE)
    assert key_file and f"/{key_file.group(1)}" in (ROOT / ".gitignore").read_text().split()
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL"}}
    code = (
        "from django.conf import settings as s; "
        "print(s.DEBUG, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.ALLOWED_HOSTS)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=clean | env | {"DJANGO_SETTINGS_MODULE": "config.settings", "SECRET_KEY": "k" * 50},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    # Cookies without the Secure flag, or a browser on http://127.0.0.1 could never sign in.
    assert result.stdout.split(maxsplit=3)[:3] == ["False", "False", "False"]
    assert "127.0.0.1" in result.stdout


@pytest.fixture
def demo(db, settings, monkeypatch, django_capture_on_commit_callbacks) -> None:
    for name, value in makefile_demo_env().items():
        monkeypatch.setenv(name, value)
        setattr(settings, name, env_bool(name, True))  # parsed as settings.py parses it
    with django_capture_on_commit_callbacks(execute=True):
        call_command("seed_demo", stdout=io.StringIO())


def _users() -> list[str]:
    return sorted(set(Membership.objects.values_list("user__username", flat=True)))


def _sign_in(username: str) -> Client:
    """Through the login form, with its CSRF token, as a person does."""
    client = Client(enforce_csrf_checks=True)
    form = client.get(reverse("login"))
    token = form.cookies["csrftoken"].value
    response = client.post(
        reverse("login"),
        {"username": username, "password": DEMO_PASSWORD, "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 302, f"{username} could not sign in"
    return client


def _check(response: Any, what: str) -> str:
    # A file download (a bid's attachment) streams its bytes.
    raw = b"".join(response.streaming_content) if response.streaming else response.content
    body = raw.decode(errors="replace")
    shown = [marker for marker in DEBUG_PAGE if marker in body]
    assert not shown, f"{what}: Django's debug page ({shown})"
    return body


def _is_own_error_page(response: Any, body: str) -> bool:
    if response["Content-Type"].startswith("application/json"):
        return "detail" in response.json()
    own = ('id="not-found"', 'id="forbidden"', 'id="bad-request"', 'id="server-error"')
    return "Clusterbid" in body and any(marker in body for marker in own)


def _crawl(client: Client, username: str) -> list[str]:
    """Follow the links from the start page, breadth first; every page answers 200 or redirects
    to one that does."""
    seen: set[str] = set()
    queue = deque(["/"])
    visited: list[str] = []
    while queue and len(visited) < PAGES_PER_USER:
        url = queue.popleft()
        if url in seen or SKIP.search(url) or SKIP_FILES.search(url):
            continue
        seen.add(url)
        response = client.get(url, follow=True)
        body = _check(response, f"{username} GET {url}")
        assert response.status_code == 200, f"{username} GET {url}: {response.status_code}"
        visited.append(url)
        if response["Content-Type"].startswith("text/html"):
            queue.extend(u.replace("&amp;", "&") for u in LINK.findall(body))
    return visited


def test_no_demo_user_ever_meets_djangos_debug_page(demo):
    users = _users()
    assert {"alice", "bob", "nora", "sam"} <= set(users)
    for username in users:
        client = _sign_in(username)
        visited = _crawl(client, username)
        assert len(visited) >= 5, f"{username} reached only {visited}"
        for url in ["/requestz/", "/bids/999999/", "/org/members/0/role/x", "/static/nope.css"]:
            response = client.get(url)
            body = _check(response, f"{username} GET {url}")
            assert response.status_code == 404 and _is_own_error_page(response, body), url
        api = client.get("/api/v1/no-such-thing/")
        assert api.status_code == 404 and _is_own_error_page(api, _check(api, "API 404"))


def test_another_organisations_objects_are_the_products_404(demo):
    request_bids = Bid.objects.filter(request__title=REQUEST_TITLE).select_related("provider")
    for bid in request_bids:
        for member in Membership.objects.exclude(organization=bid.provider).select_related("user"):
            if member.organization.is_buyer or _belongs(member.user_id, bid.provider_id):
                continue  # the buyer reads submitted bids; sam switches (below)
            client = _sign_in(member.user.username)
            for url in [
                reverse("bids:bid-detail", args=[bid.pk]),
                reverse("bids:bid-edit", args=[bid.pk]),
            ]:
                response = client.get(url)
                body = _check(response, f"{member.user} GET {url}")
                assert response.status_code == 404 and _is_own_error_page(response, body)


def _belongs(user_id: int, org_id: int) -> bool:
    return Membership.objects.filter(user_id=user_id, organization_id=org_id).exists()


def test_a_member_of_two_organisations_is_sent_to_the_right_one(demo):
    client = _sign_in("sam")
    acting = client.get("/").wsgi_request.org
    other = Organization.objects.filter(memberships__user__username="sam").exclude(pk=acting.pk)
    bid = Bid.objects.get(request__title=REQUEST_TITLE, provider=other.get())
    url = reverse("bids:bid-detail", args=[bid.pk])
    response = client.get(url, follow=True)
    assert response.redirect_chain == [(url, 302)]
    body = _check(response, "sam switching")
    assert f"Switched to {bid.provider.name} to show this page." in body
    assert response.wsgi_request.org == bid.provider


def test_every_demo_organisation_has_an_administrator_and_the_readme_names_the_roles(demo):
    for org in Organization.objects.all():
        assert org.memberships.filter(role=MemberRole.ADMIN).exists(), org.name
    readme = (ROOT / "README.md").read_text()
    for username in _users():
        assert f"`{username}`" in readme, f"the README's demo table lacks {username}"


def test_a_demo_member_who_is_not_admin_meets_the_read_only_members_page(demo):
    client = _sign_in("bob")  # Helix Labs' approver
    page = client.get(reverse("orgs:members"))
    assert 'id="members-read-only"' in _check(page, "bob members")
    token = client.cookies["csrftoken"].value
    refused = client.post(
        reverse("orgs:members"),
        {"email": "nora@example.com", "role": "admin", "csrfmiddlewaretoken": token},
    )
    assert refused.status_code == 403 and "Only an administrator" in _check(refused, "bob POST")


def test_the_static_files_are_served_with_debug_off(demo, settings, tmp_path):
    """runserver serves no static file with DEBUG off: WhiteNoise serves what `make run`
    collected."""
    settings.STATIC_ROOT = tmp_path / "static"
    call_command("collectstatic", "--noinput", verbosity=0)
    client = Client()  # a new handler: WhiteNoise reads STATIC_ROOT as it starts
    html = client.get(reverse("login")).content.decode()
    css = re.search(r'href="(/static/[^"]+\.css)"', html)
    assert css, "the login page links no stylesheet"
    response = client.get(css.group(1))
    assert response.status_code == 200
    assert b"".join(response.streaming_content)
