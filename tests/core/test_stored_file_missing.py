"""A download whose bytes are gone from file storage (a volume not shared between web and
worker, a restore without its files) is a 503 in words, on the page and in the API."""

from __future__ import annotations

import pytest
from django.core.files.storage import default_storage
from django.urls import reverse

from incidents import services
from tests.incidents.helpers import accepted, scenario_upload  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


def test_a_missing_stored_file_is_a_503_that_says_so(accepted, provider):  # noqa: F811
    run = services.failed_run_upload(
        reservation=accepted.reservation, user=provider.user, uploads=[scenario_upload(ranks=8)]
    )
    stored = run.files.get()
    default_storage.delete(stored.file.name)
    client = provider.client()
    page = client.get(reverse("incidents:failed-run-file", args=[stored.pk]))
    assert page.status_code == 503
    assert b"file storage cannot find its bytes" in page.content
    assert b"The file is not available right now" in page.content
    stored.refresh_from_db()  # the row is kept
