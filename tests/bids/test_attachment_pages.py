"""The bid's files as people meet them: attach on the bid page, see the hash, download."""

from __future__ import annotations

import hashlib

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from bids.services import bid_attachment_add, bid_submit
from tests.bids.attachment_helpers import PDF_BYTES, PNG_BYTES, upload


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def _attach(world, provider, name="tier3.pdf", data=PDF_BYTES):
    return bid_attachment_add(bid=world.bid, user=provider.user, upload=upload(name, data))


def test_a_provider_attaches_on_the_bid_page_and_sees_the_hash(world, provider):
    client = provider.client()
    page = client.get(reverse("bids:bid-detail", args=[world.bid.pk])).content.decode()
    assert 'type="file" name="file"' in page and 'name="description"' in page
    assert "At most 50 MiB." in page  # the upload limit, as the other uploads word it
    response = client.post(
        reverse("bids:bid-attachments", args=[world.bid.pk]),
        {"file": upload("tier3.pdf", PDF_BYTES), "description": "Tier III certificate"},
    )
    assert response.status_code == 302
    html = client.get(reverse("bids:bid-detail", args=[world.bid.pk])).content.decode()
    assert "tier3.pdf" in html and "Tier III certificate" in html
    assert hashlib.sha256(PDF_BYTES).hexdigest() in html
    assert "next submit" in html


def test_a_refused_file_shows_why_and_keeps_the_description(world, provider):
    response = provider.client().post(
        reverse("bids:bid-attachments", args=[world.bid.pk]),
        {"file": upload("diagram.pdf", b"not a pdf\n"), "description": "Network diagram"},
    )
    html = response.content.decode()
    assert response.status_code == 400
    assert "diagram.pdf is named as a PDF but its content is plain text" in html
    assert 'value="Network diagram"' in html


def test_the_buyer_sees_and_downloads_only_submitted_files(world, provider, buyer):
    submitted = _attach(world, provider)
    bid_submit(bid=world.bid, user=provider.user)
    draft_only = _attach(world, provider, "rack.png", PNG_BYTES)
    client = buyer.client()
    html = client.get(reverse("bids:bid-detail", args=[world.bid.pk])).content.decode()
    assert "tier3.pdf" in html and submitted.sha256 in html
    assert "rack.png" not in html
    ok = client.get(reverse("bids:bid-attachment-download", args=[world.bid.pk, submitted.pk]))
    assert ok.status_code == 200
    assert ok["Content-Disposition"] == 'attachment; filename="tier3.pdf"'
    assert ok["Content-Type"] == "application/pdf"
    assert b"".join(ok.streaming_content) == PDF_BYTES
    hidden = reverse("bids:bid-attachment-download", args=[world.bid.pk, draft_only.pk])
    assert client.get(hidden).status_code == 404


def test_a_sealed_request_hides_the_files_from_its_buyer(world, provider, buyer):
    att = _attach(world, provider)
    bid_submit(bid=world.bid, user=provider.user)
    world.request.sealed = True
    world.request.save()
    url = reverse("bids:bid-attachment-download", args=[world.bid.pk, att.pk])
    assert buyer.client().get(url).status_code == 404


def test_a_rival_never_reaches_the_file_even_through_its_own_bid(world, provider, rival_provider):
    att = _attach(world, provider)
    client = rival_provider.client()
    assert (
        client.get(reverse("bids:bid-attachment-download", args=[world.bid.pk, att.pk])).status_code
        == 404
    )
    # The file's id under the rival's own bid is no way in either.
    url = reverse("bids:bid-attachment-download", args=[world.rival_bid.pk, att.pk])
    assert client.get(url).status_code == 404


def test_the_revision_page_lists_what_it_carried(world, provider, buyer):
    att = _attach(world, provider)
    revision = bid_submit(bid=world.bid, user=provider.user)
    url = reverse("bids:revision-detail", args=[world.bid.pk, revision.number])
    html = buyer.client().get(url).content.decode()
    assert "tier3.pdf" in html and att.sha256 in html
    old = buyer.client().get(reverse("bids:revision-detail", args=[world.bid.pk, 1]))
    assert "No files in this revision" in old.content.decode()


def test_a_download_name_loses_folders_and_quotes(world, provider):
    att = _attach(world, provider, name='..\\evil"name.pdf')
    response = provider.client().get(
        reverse("bids:bid-attachment-download", args=[world.bid.pk, att.pk])
    )
    assert response["Content-Disposition"] == 'attachment; filename="evilname.pdf"'


def test_the_bid_page_query_count_does_not_grow_with_files(
    world, provider, buyer, django_assert_max_num_queries
):
    url = reverse("bids:bid-detail", args=[world.bid.pk])

    def queries(client) -> int:
        client.get(url)  # warm the session and the org switch
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return len(captured.captured_queries)

    _attach(world, provider, "f0.pdf")
    bid_submit(bid=world.bid, user=provider.user)
    owner, reader = provider.client(), buyer.client()
    few = (queries(owner), queries(reader))
    for n in range(1, 8):
        _attach(world, provider, f"f{n}.pdf")
    bid_submit(bid=world.bid, user=provider.user)
    assert (queries(owner), queries(reader)) == few
    with django_assert_max_num_queries(few[0]):
        owner.get(url)
