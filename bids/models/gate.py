"""What an invitee accepts before a request's details open to it: a non-disclosure agreement
(a text, a file or both) and the compliance documents it must hold."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from bids.models.requests import CapacityRequest
from core.limits import TEXT_LIMIT
from core.uploads import StoredUpload, stored_upload_path
from orgs.models import Organization
from suppliers.choices import DocumentType


class DetailsGate(StoredUpload):
    """The request's gate. `file` (the NDA as a document) is optional; `nda_sha256` is the
    hash of what the invitee accepts: the text and the file's hash together."""

    FALLBACK_NAME = "nda"

    request = models.OneToOneField(
        CapacityRequest, on_delete=models.CASCADE, related_name="details_gate"
    )
    nda_text = models.TextField("NDA text", blank=True, max_length=TEXT_LIMIT)
    # StoredUpload's fields describe the NDA file when there is one.
    file = models.FileField(upload_to=stored_upload_path, max_length=300, blank=True)
    original_name = models.CharField(max_length=255, blank=True)
    size = models.PositiveBigIntegerField(default=0)
    sha256 = models.CharField(max_length=64, blank=True)
    content_type = models.CharField(max_length=40, blank=True)
    required_documents = models.JSONField(default=list, blank=True)
    nda_sha256 = models.CharField(max_length=64)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Gate of {self.request.title}"

    def upload_dir(self) -> str:
        return f"bids/request-{self.request_id}/nda"

    @property
    def required_labels(self) -> list[str]:
        return [DocumentType(value).label for value in self.required_documents]

    @property
    def has_nda(self) -> bool:
        return bool(self.nda_text or self.file)


class GateAcceptance(models.Model):
    """An invited provider's acceptance of the gate, by one of its administrators."""

    request = models.ForeignKey(
        CapacityRequest, on_delete=models.CASCADE, related_name="gate_acceptances"
    )
    provider = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="+")
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    accepted_at = models.DateTimeField(auto_now_add=True)
    nda_sha256 = models.CharField(max_length=64)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["request", "provider"], name="one_gate_acceptance_per_provider"
            )
        ]

    def __str__(self) -> str:
        return f"{self.provider.name} accepted the gate of {self.request.title}"
