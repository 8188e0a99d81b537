"""An NDA gate in a real browser: the invitee sees only the title and the gate, a details
address typed by hand sends it back there, the ISO 27001 the request requires is filed on
the supplier profile, an administrator accepts, and the details and bidding open; the buyer
sees who accepted."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from audit.models import AuditEntry
from tests.bids.onboarding.helpers import NDA, gated_request

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


PHONE = {"width": 390, "height": 844}


def _width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def test_an_nda_gate(live_server, new_page, login_as, buyer, provider, tmp_path):
    req = gated_request(buyer, provider, documents=["iso27001"])
    # A phone's width: the gate and the profile fit without sideways scrolling.
    page = login_as(new_page(viewport=PHONE), provider.user.get_username())
    page.goto(f"{live_server.url}/requests/{req.pk}/")
    assert NDA in page.inner_text("#nda-text")
    assert _width(page) <= PHONE["width"]
    assert "missing or expired" in page.inner_text("#required-documents")
    assert page.locator("text=Start a bid").count() == 0

    page.goto(f"{live_server.url}/requests/{req.pk}/terms/")
    page.wait_for_selector("text=open once an administrator of your organisation accepts")
    assert page.url.endswith(f"/requests/{req.pk}/")

    page.click("#gate-accept")
    page.wait_for_selector("text=requires a current ISO/IEC 27001")

    certificate = tmp_path / "iso27001.pdf"
    certificate.write_bytes(b"%PDF-1.7\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")
    page.click("text=Profile")
    page.select_option("#id_doc_type", "iso27001")
    page.fill("#id_issuer", "BSI Group")
    today = timezone.localdate()
    page.fill("#id_issued_on", (today - timedelta(days=30)).isoformat())
    page.fill("#id_expires_on", (today + timedelta(days=3 * 365)).isoformat())
    page.set_input_files("#id_file", str(certificate))
    page.click("#document-add")
    page.wait_for_selector("text=ISO/IEC 27001 filed.")
    assert "BSI Group" in page.inner_text("#documents")
    assert _width(page) <= PHONE["width"]

    page.goto(f"{live_server.url}/requests/{req.pk}/")
    assert "on file" in page.inner_text("#required-documents")
    page.click("#gate-accept")
    page.wait_for_selector("text=the request's details are open")
    assert page.locator("text=Start a bid").count() == 1
    entry = AuditEntry.objects.get(action="request.gate_accept")
    assert entry.actor == provider.user and entry.after["nda_sha256"]

    buyer_page = login_as(new_page(), buyer.user.get_username())
    buyer_page.goto(f"{live_server.url}/requests/{req.pk}/")
    assert provider.org.name in buyer_page.inner_text("#gate-acceptances")
