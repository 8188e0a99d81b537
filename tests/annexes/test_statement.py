"""The monthly statement: rendered from the worked example (docs/availability.md), read back
from the PDF bytes, versioned and hashed like the annexes, for both parties only."""

from __future__ import annotations

import io

import pytest
from django.test import TestCase
from django.urls import reverse
from pypdf import PdfReader

from annexes.models import Annex, AnnexJob, AnnexKind
from annexes.services import annex_request
from tests.delivery.test_worked_example import build

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def _text(annex: Annex) -> str:
    with annex.pdf.open("rb") as handle:
        reader = PdfReader(io.BytesIO(handle.read()))
    return "\n".join(page.extract_text() for page in reader.pages)


def _generate(reservation, user, period: str) -> AnnexJob:
    with TestCase.captureOnCommitCallbacks(execute=True):
        job = annex_request(
            capacity_request=reservation.request, kind=AnnexKind.STATEMENT, user=user, period=period
        )
    job.refresh_from_db()
    assert job.status == "done", job.error
    return job


def _statement(reservation, user, period: str) -> Annex:
    annex = _generate(reservation, user, period).annex
    assert annex is not None
    return annex


def test_the_january_statement_carries_the_worked_figures(buyer, provider):
    reservation = build(buyer, provider)
    annex = _statement(reservation, buyer.user, "2026-01")
    text = _text(annex)
    assert "Monthly statement — 2026-01" in text
    assert "99.194" in text  # January's availability, as docs/availability.md works it
    assert "7142.40" in text.replace(",", "")  # the 10 % tier plus one 5 % breach
    assert "Fabric down" in text and "Firmware update" not in text  # March's window is not here
    assert annex.filename == f"statement-request{reservation.request_id}-2026-01-v1.pdf"
    assert len(annex.pdf_sha256) == 64 and annex.pages >= 1
    # A closed month's figures are worked as of its end: generating again issues nothing new.
    again = _generate(reservation, provider.user, "2026-01")
    assert again.reused and again.annex_id == annex.pk


def test_march_names_the_agreed_maintenance_and_the_months_are_versioned_apart(buyer, provider):
    reservation = build(buyer, provider)
    march = _statement(reservation, provider.user, "2026-03")
    assert "Firmware update" in _text(march) and "agreed maintenance" in _text(march)
    jan = _statement(reservation, buyer.user, "2026-01")
    assert (march.version, jan.version) == (1, 1)


def test_a_month_outside_the_term_is_refused_by_name(buyer, provider):
    from django.core.exceptions import ValidationError

    reservation = build(buyer, provider)
    with pytest.raises(ValidationError, match="no month '2025-12'"):
        annex_request(
            capacity_request=reservation.request,
            kind=AnnexKind.STATEMENT,
            user=buyer.user,
            period="2025-12",
        )


WHO = [("buyer", 200), ("provider", 200), ("rival_provider", 404), ("outsider", 404)]


@pytest.mark.parametrize(("role", "status"), WHO)
def test_both_parties_download_it_and_nobody_else(buyer, provider, role, status, request):
    reservation = build(buyer, provider)
    annex = _statement(reservation, buyer.user, "2026-02")
    client = request.getfixturevalue(role).client()
    assert client.get(reverse("annexes:download", args=[annex.pk])).status_code == status
    api = client.get(reverse("api:annex-pdf", args=[annex.pk]))
    assert api.status_code == status


def test_the_annex_page_offers_the_months_and_generates_one(buyer, provider):
    reservation = build(buyer, provider)
    client = provider.client()
    page = client.get(reverse("annexes:list", args=[reservation.request_id])).content.decode()
    assert 'option value="2026-03"' in page and "Monthly statement" in page
    with TestCase.captureOnCommitCallbacks(execute=True):
        client.post(reverse("annexes:generate", args=[reservation.request_id]),
                    {"kind": "statement", "period": "2026-02"})  # fmt: skip
    assert Annex.objects.get(kind="statement").period == "2026-02"
