"""Fixture and terms in a real browser: author from templates, download, acknowledge, review."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile

import pytest

from acceptance.models import Acknowledgement

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_author_download_acknowledge_review(live_server, new_page, login_as, world, provider):
    request_url = f"{live_server.url}/requests/{world.request.pk}/"

    buyer_page = login_as(new_page(), "alice")
    buyer_page.goto(request_url)
    buyer_page.click("text=Attach a fixture")
    buyer_page.click("text=Build the fixture")
    buyer_page.wait_for_selector("text=Fixture version 1 built from the template")
    assert "431" in buyer_page.inner_text("table.thresholds") or "368" in buyer_page.inner_text(
        "table.thresholds"
    )

    buyer_page.goto(request_url)
    buyer_page.click("text=Set handoff terms")
    buyer_page.click("text=Use this template")
    buyer_page.fill("#id_buyer_owner_name", "Alice Moreau")
    buyer_page.fill("#id_s1_restore_minutes", "5")
    buyer_page.click("text=Save terms")
    # Refused on the field; what was typed stays.
    assert "cannot be shorter" in buyer_page.inner_text("#id_s1_restore_minutes_error")
    assert buyer_page.input_value("#id_buyer_owner_name") == "Alice Moreau"
    buyer_page.fill("#id_s1_restore_minutes", "240")
    buyer_page.click("text=Save terms")
    buyer_page.wait_for_selector("text=Handoff terms saved")

    provider_page = login_as(new_page(), "nora")
    provider_page.goto(request_url)
    with provider_page.expect_download() as info:
        provider_page.click("#fixture-panel >> text=Download bundle (.tar.gz)")
    download = info.value
    assert download.suggested_filename.startswith("clusterbid-fixture-v1-")
    with open(download.path(), "rb") as fh, tarfile.open(fileobj=io.BytesIO(fh.read())) as tar:
        files = {m.name.split("/", 1)[1]: tar.extractfile(m).read() for m in tar if m.isfile()}
    manifest = json.loads(files.pop("MANIFEST.json"))
    assert manifest["files"] == {n: hashlib.sha256(b).hexdigest() for n, b in files.items()}

    provider_page.click("text=Acknowledge fixture and terms")
    provider_page.check("input[value=accepted_with_exceptions]")
    provider_page.fill("#id_exc-0-text", "S1 restore within 8 h: no night shift on site")
    provider_page.select_option("#id_exc-0-field", "terms.s1_restore_minutes")
    provider_page.click("text=Record acknowledgement")
    # The terms leave the provider's incident owner open: it must name one.
    assert "Name your incident owner" in provider_page.inner_text("#id_provider_owner_name_error")
    assert provider_page.input_value("#id_exc-0-text").endswith("no night shift on site")
    provider_page.fill("#id_provider_owner_name", "Nils Berg")
    provider_page.fill("#id_provider_owner_contact", "oncall@northwind.example")
    provider_page.click("text=Record acknowledgement")
    provider_page.wait_for_selector("text=Acknowledgement recorded")

    buyer_page.goto(request_url)
    row = buyer_page.locator("#acknowledgements tr", has_text=provider.org.name)
    assert "Accepted with exceptions" in row.inner_text()
    assert "no night shift on site" in row.inner_text()
    assert "Nils Berg · oncall@northwind.example" in row.inner_text()
    ack = Acknowledgement.objects.get(bid=world.bid)
    assert ack.exceptions == [
        {
            "text": "S1 restore within 8 h: no night shift on site",
            "field": "terms.s1_restore_minutes",
        }
    ]
