"""Issue 20's attachment walk in a real browser: the provider attaches a PDF on its bid page,
sees its SHA-256, submits; the buyer sees it on the bid; after the award the contract annex
PDF, read back, names the file and prints its SHA-256."""

from __future__ import annotations

import hashlib
import io

import pytest
from pypdf import PdfReader

from acceptance.services.acknowledgements import acknowledgement_submit
from acceptance.services.award import request_award
from acceptance.services.fixtures import fixture_from_template
from bids.models import BidRevision
from bids.services import request_close
from contracts.defaults import DEFAULT_TERMS_TEMPLATE
from contracts.services.terms import terms_create
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from tests.bids.attachment_helpers import PDF_BYTES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAME = "tier3-certificate.pdf"
SHA = hashlib.sha256(PDF_BYTES).hexdigest()


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def test_attach_submit_and_read_the_hash_back_from_the_annex(
    live_server, new_page, login_as, world, buyer, provider
):
    req = world.request
    fixture_from_template(capacity_request=req, user=buyer.user, template=DEFAULT_TEMPLATE)
    terms_create(capacity_request=req, user=buyer.user, template=DEFAULT_TERMS_TEMPLATE)
    acknowledgement_submit(bid=world.bid, user=provider.user, status="accepted", exceptions=[])
    bid_url = f"{live_server.url}/bids/{world.bid.pk}/"

    nora = login_as(new_page(), "nora")
    nora.goto(bid_url)
    # A text file named .pdf is refused by its content, and the description stays typed.
    nora.set_input_files(
        "#attachment-form input[type=file]",
        {"name": NAME, "mimeType": "application/pdf", "buffer": b"not really a pdf\n"},
    )
    nora.fill("#attachment-form input[name=description]", "Tier III certificate")
    nora.click("#attachment-form button[type=submit]")
    nora.wait_for_selector(f"text={NAME} is named as a PDF but its content is plain text")
    assert nora.input_value("input[name=description]") == "Tier III certificate"

    nora.set_input_files(
        "#attachment-form input[type=file]",
        {"name": NAME, "mimeType": "application/pdf", "buffer": PDF_BYTES},
    )
    nora.click("#attachment-form button[type=submit]")
    nora.wait_for_selector(f"text={NAME} attached.")
    row = nora.locator("#attachment-list tbody tr", has_text=NAME)
    assert SHA in row.inner_text() and "next submit" in row.inner_text()
    nora.click("button:has-text('Submit revision 2')")
    nora.wait_for_selector("text=Revision 2 submitted and frozen.")
    assert "2 (frozen)" in nora.locator("#attachment-list").inner_text()
    revision = BidRevision.objects.get(bid=world.bid, number=2)
    assert [(f["name"], f["sha256"]) for f in revision.attachments] == [(NAME, SHA)]

    alice = login_as(new_page(), "alice")
    alice.goto(bid_url)
    assert SHA in alice.locator("#attachments", has_text=NAME).inner_text()
    with alice.expect_download() as info:
        alice.click(f"#attachment-list a:has-text('{NAME}')")
    assert info.value.suggested_filename == NAME
    with open(info.value.path(), "rb") as fh:
        assert fh.read() == PDF_BYTES

    request_close(capacity_request=req, user=buyer.user, confirmed=True)
    request_award(capacity_request=req, bid=world.bid, user=buyer.user)
    alice.goto(f"{live_server.url}/requests/{req.pk}/annexes/")
    alice.click("#annex-contract button:has-text('Generate version 1')")
    alice.wait_for_selector("#annex-contract td:has-text('v1')")
    with alice.expect_download() as info:
        alice.click("#annex-contract a:has-text('Download PDF')")
    with open(info.value.path(), "rb") as fh:
        reader = PdfReader(io.BytesIO(fh.read()))
    text = " ".join(page.extract_text() for page in reader.pages).replace("\n", " ")
    assert "Files attached to the offer (1)" in text
    assert f"{SHA}  {NAME}" in text
