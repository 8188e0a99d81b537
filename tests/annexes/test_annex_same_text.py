"""Same value, same text: a clock or a size reads the same on the page and in the signed PDF."""

from __future__ import annotations

import io
from typing import Any

from django.urls import reverse
from pypdf import PdfReader

from acceptance.services.acknowledgements import acknowledgement_submit
from acceptance.services.award import request_award
from acceptance.services.fixtures import fixture_from_template
from annexes.models import AnnexJobStatus, AnnexKind
from annexes.services import annex_request
from bids.services import request_close
from contracts.defaults import DEFAULT_TERMS_TEMPLATE
from contracts.services.terms import terms_create, terms_update
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from engine.formatting import data_size, duration


def test_a_two_day_clock_and_a_gibibyte_read_the_same_on_the_page_and_in_the_pdf(
    world: Any, buyer: Any, provider: Any, client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """GIVEN terms whose S3 restore clock is 2,880 minutes, awarded THEN the terms page and the
    contract annex both print '2 d' (not '48 h' or '2 days'), and the fixture's large-message
    size reads '1 GiB' on the fixture page and in the annex."""
    fixture_from_template(
        capacity_request=world.request, user=buyer.user, template=DEFAULT_TEMPLATE
    )
    terms = terms_create(
        capacity_request=world.request, user=buyer.user, template=DEFAULT_TERMS_TEMPLATE
    )
    terms_update(terms=terms, user=buyer.user, data={"s3_restore_minutes": 2880})
    acknowledgement_submit(bid=world.bid, user=provider.user, status="accepted", exceptions=[])
    request_close(capacity_request=world.request, user=buyer.user, confirmed=True)
    request_award(capacity_request=world.request, bid=world.bid, user=buyer.user)
    assert duration(2880) == "2 d" and data_size(1 << 30) == "1 GiB"

    client.force_login(buyer.user)
    terms_page = client.get(reverse("contracts:terms-detail", args=[world.request.pk]))
    fixture_page = client.get(reverse("acceptance:fixture-detail", args=[world.request.pk]))
    with django_capture_on_commit_callbacks(execute=True):
        job = annex_request(
            capacity_request=world.request, kind=AnnexKind.CONTRACT, user=buyer.user
        )
    job.refresh_from_db()
    assert job.status == AnnexJobStatus.DONE, job.error
    with job.annex.pdf.open("rb") as fh:
        pdf = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(fh.read())).pages)

    assert "2 d" in terms_page.content.decode() and "2 d" in pdf
    for other in ("48 h", "2 days"):
        assert other not in terms_page.content.decode() and other not in pdf
    assert "1 GiB" in fixture_page.content.decode() and "1 GiB" in pdf
