"""The annex states why a bid was awarded against the scores, when the buyer wrote why."""

from __future__ import annotations

import io

from pypdf import PdfReader

from acceptance.models import Reservation
from annexes.models import AnnexJobStatus, AnnexKind
from annexes.services import annex_request

REASON = "Only this provider can deliver in March, which the launch plan needs."


def _contract_text(request, user, capture) -> str:
    with capture(execute=True):
        job = annex_request(capacity_request=request, kind=AnnexKind.CONTRACT, user=user)
    job.refresh_from_db()
    assert job.status == AnnexJobStatus.DONE, job.error
    with job.annex.pdf.open("rb") as fh:
        reader = PdfReader(io.BytesIO(fh.read()))
    return " ".join(page.extract_text() for page in reader.pages).replace("\n", " ")


def test_the_annex_prints_the_award_justification(
    awarded, buyer, django_capture_on_commit_callbacks
):
    Reservation.objects.filter(request=awarded.request).update(award_justification=REASON)
    text = _contract_text(awarded.request, buyer.user, django_capture_on_commit_callbacks)
    assert f"Award: {REASON}" in text


def test_no_award_line_without_a_justification(awarded, buyer, django_capture_on_commit_callbacks):
    text = _contract_text(awarded.request, buyer.user, django_capture_on_commit_callbacks)
    assert "Award:" not in text
