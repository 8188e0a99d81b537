"""Every page a demo user reaches, found by following links from the home page as each demo
login on a 390 px phone: axe-core (WCAG 2.1 A and AA, and its best practices: landmarks, skip
link, headings, table headers) reports no violation, and no page is wider than the screen.

One page per route and login: the demo's three requests and their bids share templates, and
each route's first page carries every section its later ones do.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import axe_playwright_python
import pytest
from django.core.management import call_command
from django.urls import Resolver404, resolve
from playwright.sync_api import Error as PlaywrightError

from demo.seed import DEMO_PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE_JS = (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text()
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
PHONE = {"width": 390, "height": 844}
# Links that leave the pages for files, the API, the admin or the session's end.
NOT_A_PAGE = re.compile(
    r"(/logout|/download|\.pdf$|\.xlsx$|\.csv$|\.zip$|\.tar\.gz$|\.json$|\.txt$|/api/|/admin/|"
    r"/static/|/media/|/raw/?$)"
)
LOGINS = ["alice", "bob", "nora", "arun", "pat", "sam"]
PAGE_LIMIT = 120  # per login: the demo has about 60 routes; a loop of links stops here


def _route(url: str) -> str | None:
    path = urlsplit(url).path
    try:
        return resolve(path).view_name
    except Resolver404:
        return None


def _violations(page: Any) -> list[str]:
    page.add_script_tag(content=AXE_JS)
    result = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", AXE_TAGS
    )
    return [
        f"{v['id']} ({len(v['nodes'])}×, first at {v['nodes'][0]['target']}): {v['help']}"
        for v in result["violations"]
    ]


def _crawl(page: Any, base: str) -> dict[str, list[str]]:
    """What is wrong, by the page's path: axe's violations and a width past the screen."""
    found: dict[str, list[str]] = {}
    routes: set[str] = set()
    queue, seen = [page.url], set[str]()
    while queue and len(seen) < PAGE_LIMIT:
        url = queue.pop(0).split("#")[0]
        route = _route(url)
        if url in seen or route is None or route in routes:
            continue
        seen.add(url)
        try:
            response = page.goto(url)
        except PlaywrightError as error:
            if "Download is starting" in str(error):  # a file behind a page-like URL
                continue
            raise
        if response is None or "text/html" not in response.headers.get("content-type", ""):
            continue
        routes.add(route)
        problems = [] if response.ok else [f"answered {response.status}"]
        problems += _violations(page)
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > PHONE["width"]:
            problems.append(f"{width} px wide at {PHONE['width']} px")
        if problems:
            found[urlsplit(url).path] = problems
        for href in page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)"):
            if href.startswith(base) and not NOT_A_PAGE.search(urlsplit(href).path):
                queue.append(href)
    return found


def test_every_page_of_the_demo_passes_axe_and_fits_a_phone(
    transactional_db: Any, live_server: Any, new_page: Any
) -> None:
    """One seeding for every login (it is most of the time): signed out first, then each."""
    call_command("seed_demo", verbosity=0)
    found: dict[str, dict[str, list[str]]] = {}
    page = new_page(viewport=PHONE)
    page.goto(f"{live_server.url}/accounts/login/")
    found["signed out"] = _crawl(page, live_server.url)
    for username in LOGINS:
        page = new_page(viewport=PHONE)
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", username)
        page.fill("#id_password", DEMO_PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_load_state()
        found[username] = _crawl(page, live_server.url)
    report = [
        f"{who} {path}: {'; '.join(problems)}"
        for who, pages in found.items()
        for path, problems in pages.items()
    ]
    assert not report, "\n".join(report)
