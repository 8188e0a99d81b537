"""Demo handoff terms for the seeded request (called from the demo seed)."""

from __future__ import annotations

from django.db import transaction

from bids.models import CapacityRequest
from contracts.models import HandoffTerms
from contracts.services import terms_create, terms_update


@transaction.atomic
def seed_terms_demo(capacity_request: CapacityRequest) -> HandoffTerms:
    """Default 24 × 7 terms with the buyer's owner named; running it again changes nothing."""
    existing = HandoffTerms.objects.filter(request=capacity_request).first()
    if existing is not None:
        return existing
    user = capacity_request.created_by
    assert user is not None, "the demo request has an author"
    terms = terms_create(capacity_request=capacity_request, user=user, template="training-24x7")
    return terms_update(
        terms=terms,
        user=user,
        data={
            "buyer_owner_name": "Alice Moreau (training infra lead)",
            "buyer_owner_contact": "alice@helix.example · +49 30 5550 1000",
        },
    )
