"""Browser fixtures, registered for the whole suite from tests/conftest.py.

Playwright drives Debian's Chromium against pytest-django's live server.

Never downloads a browser: CHROMIUM_PATH (default /usr/bin/chromium) must exist. Locally a
missing Chromium skips these tests with the reason; in CI it fails them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_service
from tests.factories import PASSWORD

# Playwright's sync API runs an event loop in this thread; the ORM calls the tests make
# around it are still plain synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-quic",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    require_service(Path(CHROMIUM).exists(), f"Chromium not found at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def new_page(chromium: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A factory of pages, each in its own context (own cookies), screenshotted on failure."""
    contexts: list[Any] = []

    def make(viewport: dict[str, int] | None = None, **options: Any) -> Any:
        context = chromium.new_context(
            viewport=viewport or {"width": 1366, "height": 900}, accept_downloads=True, **options
        )
        context.set_default_timeout(15_000)
        contexts.append(context)
        return context.new_page()

    yield make
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.nodeid)
        for index, context in enumerate(contexts):
            for number, page in enumerate(context.pages):
                page.screenshot(
                    path=str(ARTIFACTS / f"{safe}-{index}-{number}.png"), full_page=True
                )
    for context in contexts:
        context.close()


@pytest.fixture
def login_as(live_server: Any) -> Any:
    def login(page: Any, username: str) -> Any:
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", username)
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(re.compile(r".*/(requests|inbox)/.*"))
        return page

    return login
