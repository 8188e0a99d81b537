"""Webhook reads, always within one organisation: another organisation's endpoint or delivery
is a 404."""

from __future__ import annotations

from uuid import UUID

from django.db.models import Count, Prefetch, QuerySet
from django.shortcuts import get_object_or_404

from notices.choices import RECEIVING_KINDS, Event
from orgs.models import Organization
from webhooks.models import Attempt, Delivery, Endpoint


def events_for(organization: Organization) -> list[tuple[str, str]]:
    """(code, label) of the notice events this organisation's kind can be sent, in the
    notices table's order: what its webhooks may subscribe to."""
    return [
        (event.value, str(event.label))
        for event in Event
        if organization.kind in RECEIVING_KINDS[event]
    ]


def endpoint_list(*, organization: Organization) -> QuerySet[Endpoint]:
    return (
        Endpoint.objects.filter(organization=organization)
        .select_related("created_by")
        .annotate(delivery_count=Count("deliveries"))
        .order_by("-created_at", "-pk")  # Meta.ordering is dropped from a GROUP BY query
    )


def endpoint_get(*, organization: Organization, public_id: UUID) -> Endpoint:
    return get_object_or_404(
        Endpoint.objects.select_related("organization", "created_by"),
        organization=organization,
        public_id=public_id,
    )


def delivery_log(*, endpoint: Endpoint) -> QuerySet[Delivery]:
    """The endpoint's deliveries, newest first, each with its attempts in order."""
    attempts = Attempt.objects.select_related("requested_by").order_by("number")
    return (
        Delivery.objects.filter(endpoint=endpoint)
        .select_related("event")
        .prefetch_related(Prefetch("attempt_log", queryset=attempts))
    )


def delivery_get(*, organization: Organization, public_id: UUID) -> Delivery:
    return get_object_or_404(
        Delivery.objects.select_related("endpoint__organization", "event"),
        endpoint__organization=organization,
        public_id=public_id,
    )
