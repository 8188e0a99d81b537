"""A published request whose details wait behind a gate: an NDA, and an ISO 27001 for the
provider; Northwind (`provider`) and Rival Cloud (`rival_provider`) are invited."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from bids.choices import RequestStatus
from bids.models import CapacityRequest
from bids.services import gate_set, request_publish
from suppliers.services import document_add
from tests.factories import CapacityRequestFactory, InvitationFactory

NDA = "The recipient keeps the buyer's cluster plans confidential for three years."


def gated_request(
    buyer: Any, *providers: Any, documents: list[str] | None = None
) -> CapacityRequest:
    req = CapacityRequestFactory(
        buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None, title="Secret 16 × H200"
    )
    for provider in providers:
        InvitationFactory(request=req, provider=provider.org)
    gate_set(
        capacity_request=req,
        user=buyer.user,
        nda_text=NDA,
        required_documents=documents or [],
    )
    request_publish(capacity_request=req, user=buyer.user)
    req.refresh_from_db()
    return req


def pdf(name: str = "iso27001.pdf") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, b"%PDF-1.7\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")


def file_iso27001(provider: Any, *, expires_in_days: int = 200) -> Any:
    today = timezone.localdate()
    return document_add(
        org=provider.org,
        user=provider.user,
        doc_type="iso27001",
        issuer="BSI",
        issued_on=today - timedelta(days=100),
        expires_on=today + timedelta(days=expires_in_days),
        upload=pdf(),
    )
