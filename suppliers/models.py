"""A provider organisation's supplier profile and the compliance documents it files."""

from __future__ import annotations

from datetime import date

from django.conf import settings
from django.db import models
from django.utils import timezone

from core.uploads import StoredUpload
from orgs.models import Organization
from suppliers.choices import DocumentType


class SupplierProfile(models.Model):
    """What a buyer's procurement team asks of a new vendor before anything else."""

    organization = models.OneToOneField(
        Organization, on_delete=models.CASCADE, related_name="supplier_profile"
    )
    legal_name = models.CharField(max_length=200)
    website = models.URLField(max_length=200, blank=True)
    regions = models.CharField(
        "Regions served",
        max_length=200,
        blank=True,
        help_text="Where your clusters run, e.g. EU (Frankfurt), US-East.",
    )
    contact_name = models.CharField("Contact name", max_length=120)
    contact_email = models.EmailField("Contact e-mail", max_length=254)
    contact_phone = models.CharField("Contact phone", max_length=40, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.legal_name


class ComplianceDocumentQuerySet(models.QuerySet["ComplianceDocument"]):
    def current(self, on: date | None = None) -> ComplianceDocumentQuerySet:
        """Valid on `on` (today by default): issued and not yet expired."""
        day = on or timezone.localdate()
        return self.filter(issued_on__lte=day, expires_on__gte=day)


EXPIRY_AFTER_ISSUE = "The expiry date must be after the issue date."


class ComplianceDocument(StoredUpload):
    """An attestation (a SOC 2 report, an ISO certificate) with who issued it and until when
    it holds; the file is checked by content and stored like a bid attachment."""

    FALLBACK_NAME = "document"

    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="compliance_documents"
    )
    doc_type = models.CharField("Type", max_length=20, choices=DocumentType.choices)
    issuer = models.CharField(max_length=200, help_text="The auditor or certification body.")
    issued_on = models.DateField("Issued on")
    expires_on = models.DateField("Expires on")
    content_type = models.CharField(max_length=40)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)

    objects = ComplianceDocumentQuerySet.as_manager()

    class Meta:
        ordering = ["organization", "doc_type", "-expires_on", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(expires_on__gt=models.F("issued_on")),
                name="compliance_expires_after_issue",
                violation_error_message=EXPIRY_AFTER_ISSUE,
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_doc_type_display()} ({self.issuer}, until {self.expires_on})"

    def upload_dir(self) -> str:
        return f"suppliers/org-{self.organization_id}/compliance"

    @property
    def is_expired(self) -> bool:
        return self.expires_on < timezone.localdate()


class ExpiryReminder(models.Model):
    """One reminder sent for one document at one threshold (days before it expires): the sweep
    that finds a row here sends nothing again."""

    document = models.ForeignKey(
        ComplianceDocument, on_delete=models.CASCADE, related_name="reminders"
    )
    days_before = models.PositiveSmallIntegerField()
    sent_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["document", "days_before"], name="one_reminder_per_threshold"
            )
        ]

    def __str__(self) -> str:
        return f"{self.document}: {self.days_before} days before"
