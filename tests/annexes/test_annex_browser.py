"""Generate a contract annex in the browser, watch it finish, download the PDF."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_buyer_generates_and_downloads_the_annex(live_server, new_page, login_as, awarded):
    page = login_as(new_page(), "alice")
    page.goto(f"{live_server.url}/requests/{awarded.request.pk}/")
    page.click("text=Open annexes")
    page.click("#annex-contract button:has-text('Generate version 1')")
    # Rendering runs as a task; the page says so, then shows the issued version.
    page.wait_for_selector("#annex-contract td:has-text('v1')")
    with page.expect_download() as info:
        page.click("#annex-contract a:has-text('Download PDF')")
    download = info.value
    assert download.suggested_filename.endswith("-v1.pdf")
    with open(download.path(), "rb") as fh:
        data = fh.read()
    assert data.startswith(b"%PDF")
    text = PdfReader(io.BytesIO(data)).pages[0].extract_text()
    assert awarded.request.title in text

    provider_page = login_as(new_page(), "nora")
    provider_page.goto(f"{live_server.url}/requests/{awarded.request.pk}/annexes/")
    assert provider_page.locator("#annex-contract td:has-text('v1')").count() == 1
    assert provider_page.locator("#annex-comparison").count() == 0
