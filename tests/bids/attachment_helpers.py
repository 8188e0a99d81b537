"""Files a provider attaches in tests: a minimal PDF, PNG and JPEG, and an upload of bytes."""

from __future__ import annotations

from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile

PDF_BYTES = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
PNG_BYTES = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
JPEG_BYTES = b"\xff\xd8\xff\xe0" + b"\x00" * 24


def upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data)


def frozen_attachment(world: Any) -> Any:
    """A PDF on the world's bid that revision 1 carried (made once per test)."""
    from bids.models import BidAttachment

    bid = world.bid
    found = BidAttachment.objects.filter(bid=bid).first()
    if found is not None:
        return found
    att = BidAttachment(bid=bid, first_revision=1, content_type="application/pdf")
    att.store(upload("tier3.pdf", PDF_BYTES))
    att.save()
    return att
