"""Writes of supplier profiles and compliance documents, and the expiry reminders.

Only a provider organisation's administrators change its profile and documents
(`PermissionDenied` otherwise); each change is recorded on the organisation's audit trail.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from audit.members import record_org_action
from core.filetypes import UnsupportedFile, check_file
from core.uploads import atomic_keeping_no_orphans, check_upload
from notices.choices import Event
from notices.services import notify
from orgs.choices import MemberRole
from orgs.models import Membership, Organization
from orgs.selectors import is_member_admin
from suppliers.models import EXPIRY_AFTER_ISSUE, ComplianceDocument, ExpiryReminder, SupplierProfile
from suppliers.selectors import documents_due_for_reminder

PROFILE_FIELDS = (
    "legal_name",
    "website",
    "regions",
    "contact_name",
    "contact_email",
    "contact_phone",
)


def _check_admin(*, org: Organization, user: User) -> None:
    if not org.is_provider:
        raise PermissionDenied("Only provider organisations keep a supplier profile.")
    if not is_member_admin(org=org, user=user):
        raise PermissionDenied(f"Only {org.name}'s administrators change its supplier profile.")


@transaction.atomic
def profile_save(*, org: Organization, user: User, data: dict[str, Any]) -> SupplierProfile:
    _check_admin(org=org, user=user)
    profile = SupplierProfile.objects.select_for_update().filter(organization=org).first()
    before = {f: getattr(profile, f) for f in PROFILE_FIELDS} if profile else None
    profile = profile or SupplierProfile(organization=org)
    for field in PROFILE_FIELDS:
        setattr(profile, field, data.get(field, ""))
    profile.full_clean()
    profile.save()
    after = {f: getattr(profile, f) for f in PROFILE_FIELDS}
    record_org_action(
        organization=org, user=user, action="supplier.profile", before=before, after=after
    )
    return profile


def _check_dates(*, issued_on: date, expires_on: date) -> None:
    if expires_on <= issued_on:
        raise ValidationError({"expires_on": [EXPIRY_AFTER_ISSUE]})
    if issued_on > timezone.localdate():
        raise ValidationError({"issued_on": ["The issue date cannot be in the future."]})


def document_add(
    *,
    org: Organization,
    user: User,
    doc_type: str,
    issuer: str,
    issued_on: date,
    expires_on: date,
    upload: UploadedFile,
) -> ComplianceDocument:
    """File a compliance document: its dates checked, its bytes checked by content (a PDF,
    an image or text) and stored under a neutral name."""
    _check_admin(org=org, user=user)
    _check_dates(issued_on=issued_on, expires_on=expires_on)
    check_upload(upload, limit=settings.EVIDENCE_MAX_BYTES, field="file")
    with atomic_keeping_no_orphans():
        document = ComplianceDocument(
            organization=org,
            doc_type=doc_type,
            issuer=issuer,
            issued_on=issued_on,
            expires_on=expires_on,
            uploaded_by=user,
        )
        document.store(upload)
        try:
            kind = check_file(document.original_name, document.read_bytes())
        except UnsupportedFile as exc:
            raise ValidationError({"file": [str(exc)]}) from None
        document.content_type = kind.content_type
        document.keep_as(kind.content_type)
        document.full_clean(exclude=["file"])
        document.save()
        record_org_action(
            organization=org, user=user, action="supplier.document.add", after=_row(document)
        )
    return document


@transaction.atomic
def document_remove(*, document: ComplianceDocument, user: User) -> None:
    _check_admin(org=document.organization, user=user)
    row = _row(document)
    document.delete()
    record_org_action(
        organization=document.organization,
        user=user,
        action="supplier.document.remove",
        before=row,
    )


def _row(document: ComplianceDocument) -> dict[str, Any]:
    return {
        "type": document.get_doc_type_display(),
        "issuer": document.issuer,
        "issued_on": document.issued_on,
        "expires_on": document.expires_on,
        "file": document.original_name,
        "sha256": document.sha256,
    }


def send_expiry_reminders(*, today: date | None = None) -> int:
    """Remind each provider's administrators of each document that expires within a threshold
    of COMPLIANCE_REMINDER_DAYS: one reminder per document per threshold, however often this
    runs. A document first seen inside a nearer threshold is reminded at that one only (the
    farther ones count as passed). Returns how many reminders were sent."""
    day = today or timezone.localdate()
    thresholds = sorted(settings.COMPLIANCE_REMINDER_DAYS)
    if not thresholds:
        return 0
    sent = 0
    for document in documents_due_for_reminder(days_before=thresholds[-1], today=day):
        left = (document.expires_on - day).days
        threshold = next(t for t in thresholds if left <= t)
        reminded = {reminder.days_before for reminder in document.reminders.all()}
        if threshold not in reminded and _remind(
            document=document, thresholds=[t for t in thresholds if t >= threshold], today=day
        ):
            sent += 1
    return sent


def _remind(*, document: ComplianceDocument, thresholds: list[int], today: date) -> bool:
    """Send the reminder of `thresholds[0]`, recording it and the farther thresholds passed."""
    org = document.organization
    try:
        with transaction.atomic():
            ExpiryReminder.objects.create(document=document, days_before=thresholds[0])
            ExpiryReminder.objects.bulk_create(
                [ExpiryReminder(document=document, days_before=t) for t in thresholds[1:]],
                ignore_conflicts=True,
            )
            left = (document.expires_on - today).days
            label = document.get_doc_type_display()
            admins = [
                m.user
                for m in Membership.objects.filter(
                    organization=org, role=MemberRole.ADMIN
                ).select_related("user")
            ]
            notify(
                event=Event.COMPLIANCE_EXPIRING,
                users=admins,
                organization=org,
                subject=f"{label} expires in {left} day{'s' if left != 1 else ''}",
                body=(
                    f"{org.name}'s {label} from {document.issuer} expires on "
                    f"{document.expires_on:%Y-%m-%d}. Requests that require it stop counting "
                    "it then: file the renewed document on your supplier profile."
                ),
                path=reverse("suppliers:profile"),
                key=f"compliance-expiring:{document.pk}:{thresholds[0]}",
            )
    except IntegrityError:
        return False  # a concurrent sweep sent this one
    return True
