"""The buyer's gate page: set on a draft, with the NDA as text and a file and the documents
invitees must hold; a refused file names it and keeps what was typed."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from audit.models import AuditEntry
from bids.choices import RequestStatus
from bids.models import DetailsGate
from tests.factories import CapacityRequestFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def draft(buyer):
    return CapacityRequestFactory(buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None)


def test_the_buyer_sets_the_gate_on_a_draft(draft, buyer):
    response = buyer.client().post(
        reverse("bids:gate-edit", args=[draft.pk]),
        {
            "nda_text": "Keep it confidential.",
            "nda_file": SimpleUploadedFile("nda.pdf", b"%PDF-1.7\n%%EOF\n"),
            "required_documents": ["soc2_type2"],
        },
    )
    assert response.status_code == 302
    gate = DetailsGate.objects.get(request=draft)
    assert gate.required_labels == ["SOC 2 Type II"] and gate.original_name == "nda.pdf"
    assert AuditEntry.objects.get(action="request.gate").after["nda_sha256"] == gate.nda_sha256
    page = buyer.client().get(reverse("bids:request-detail", args=[draft.pk])).content.decode()
    assert "SOC 2 Type II" in page and "nda.pdf" in page


def test_a_file_that_is_no_document_is_named_and_the_text_kept(draft, buyer):
    response = buyer.client().post(
        reverse("bids:gate-edit", args=[draft.pk]),
        {"nda_text": "Keep it confidential.", "nda_file": SimpleUploadedFile("nda.pdf", b"\x00")},
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "nda.pdf is not" in html and "Keep it confidential." in html
    assert not DetailsGate.objects.exists()


def test_emptying_every_part_lifts_the_gate(draft, buyer):
    client = buyer.client()
    url = reverse("bids:gate-edit", args=[draft.pk])
    client.post(url, {"nda_text": "Keep it confidential."})
    client.post(url, {"nda_text": ""})
    assert not DetailsGate.objects.exists()
    assert AuditEntry.objects.filter(action="request.gate").count() == 2
