"""Reads for handoff terms; tenancy is the request's (see bids.selectors.request_get_for_org)."""

from __future__ import annotations

from django.db.models import QuerySet

from bids.models import CapacityRequest, Lot
from bids.request_facts import AgreedTerms
from contracts.defaults import SEVERITIES
from contracts.models import HandoffTerms, HandoffTermsRevision
from engine.formatting import duration


def terms_for_request(*, capacity_request: CapacityRequest) -> HandoffTerms | None:
    return (
        HandoffTerms.objects.filter(request=capacity_request).select_related("updated_by").first()
    )


def terms_for_lot(*, lot: Lot) -> HandoffTerms | None:
    """The lot's own terms; None: it shares the request's."""
    return HandoffTerms.objects.filter(lot=lot).select_related("updated_by").first()


def agreed_terms_of(capacity_request: CapacityRequest) -> AgreedTerms | None:
    """The terms as values for readers beside this app (the questionnaire's targets)."""
    terms = HandoffTerms.objects.filter(request=capacity_request).first()
    return AgreedTerms(values=terms.snapshot(), version=terms.version) if terms else None


def terms_revision_list(*, terms: HandoffTerms) -> QuerySet[HandoffTermsRevision]:
    return terms.revisions.select_related("created_by").order_by("-number")


def severity_rows(*, terms: HandoffTerms) -> list[dict[str, object]]:
    rows = []
    for key, label in SEVERITIES:
        response = getattr(terms, f"{key}_response_minutes")
        restore = getattr(terms, f"{key}_restore_minutes")
        rows.append(
            {
                "key": key,
                "label": label,
                "response": response,
                "response_text": duration(response),
                "restore": restore,
                "restore_text": duration(restore),
                "escalation": getattr(terms, f"{key}_escalation"),
            }
        )
    return rows
