"""Issue 18's browser check: the buyer opens the reservation's timeline, generates January's
statement and reads the downloaded PDF back, then opens the provider's scorecard; a rival buyer
sees none of it (404 on each page)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests.delivery.test_worked_example import build
from tests.incidents.helpers import media_root

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
__all__ = ["media_root"]  # autouse: statements are written to a temporary MEDIA_ROOT


def test_timeline_statement_and_scorecard_for_the_buyer_and_nothing_for_a_rival(
    live_server, new_page, login_as, buyer, provider, outsider
):
    reservation = build(buyer, provider)
    page = login_as(new_page(), "alice")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    page.goto(f"{live_server.url}/reservations/{reservation.pk}/")
    page.wait_for_selector("#delivery-timeline .main-svg")
    assert "gpu-03" in page.inner_text("#delivery-timeline")

    page.click("#delivery-more a:has-text('monthly statements')")
    page.select_option("#statement-period", "2026-01")
    page.click("#annex-statement button[type=submit]")
    page.wait_for_selector("#annex-statement a:has-text('Download PDF')")
    with page.expect_download() as download:
        page.click("#annex-statement a:has-text('Download PDF')")
    pdf = Path(download.value.path()).read_bytes()
    reader = PdfReader(io.BytesIO(pdf))
    text = "\n".join(p.extract_text() for p in reader.pages)
    assert "Monthly statement — 2026-01" in text and "99.194" in text
    assert download.value.suggested_filename.endswith("-2026-01-v1.pdf")

    page.goto(f"{live_server.url}/reservations/{reservation.pk}/")
    page.click("#delivery-more a:has-text('scorecard')")
    page.wait_for_selector("#realised-mtbf")
    card = page.inner_text("main")
    assert "Northwind: scorecard" in card and "Realised node MTBF" in card
    assert not errors

    rival = login_as(new_page(), "oscar")  # another buyer, with no reservation of its own here
    for path in (
        f"/reservations/{reservation.pk}/",
        f"/requests/{reservation.request_id}/annexes/",
        f"/providers/{provider.org.pk}/scorecard/",
    ):
        response = rival.goto(f"{live_server.url}{path}")
        assert response is not None and response.status == 404, path
    assert "99.194" not in rival.content()
