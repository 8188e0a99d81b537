"""Reads of supplier profiles and compliance documents. An organisation reads its own; a
buyer reads those of the providers it invited (bids.selectors decides who that is and passes
the provider here)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta

from django.db.models import QuerySet
from django.http import Http404
from django.utils import timezone

from orgs.models import Organization
from suppliers.choices import DocumentType
from suppliers.models import ComplianceDocument, SupplierProfile


def profile_for(*, org: Organization) -> SupplierProfile | None:
    return SupplierProfile.objects.filter(organization=org).first()


def documents_for(*, org: Organization) -> QuerySet[ComplianceDocument]:
    return ComplianceDocument.objects.filter(organization=org).select_related("uploaded_by")


def document_get(*, org: Organization | None, pk: int) -> ComplianceDocument:
    """One of `org`'s own documents; 404 for anyone else's."""
    if org is None:
        raise Http404
    try:
        return ComplianceDocument.objects.get(organization=org, pk=pk)
    except ComplianceDocument.DoesNotExist:
        raise Http404 from None


def missing_documents(
    *, org: Organization, wanted: Iterable[str], on: date | None = None
) -> list[str]:
    """The labels of the `wanted` document types `org` holds no current document of."""
    held = set(
        ComplianceDocument.objects.filter(organization=org)
        .current(on)
        .values_list("doc_type", flat=True)
    )
    return [DocumentType(value).label for value in wanted if value not in held]


def documents_due_for_reminder(
    *, days_before: int, today: date | None = None
) -> QuerySet[ComplianceDocument]:
    """Documents that expire within `days_before` days and have not yet, with the reminders
    already sent for them."""
    day = today or timezone.localdate()
    return (
        ComplianceDocument.objects.filter(
            expires_on__gte=day, expires_on__lte=day + timedelta(days=days_before)
        )
        .select_related("organization")
        .prefetch_related("reminders")
        .order_by("pk")
    )
