"""A provider's scorecard as JSON: the same figures as the page, for the viewer's own rows."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from scorecards.selectors import SEVERITIES, Scorecard


class SeverityCountsSerializer(serializers.Serializer):
    S1 = serializers.IntegerField()
    S2 = serializers.IntegerField()
    S3 = serializers.IntegerField()


class ScorecardLineSerializer(serializers.Serializer):
    reservation = serializers.IntegerField()
    request = serializers.CharField()
    buyer = serializers.CharField()
    status = serializers.CharField()
    burn_in_runs = serializers.IntegerField()
    accepted_first_try = serializers.BooleanField(allow_null=True)
    failed_checks = serializers.IntegerField()
    incidents = SeverityCountsSerializer()
    clock_breaches = serializers.IntegerField()


class ScorecardSerializer(serializers.Serializer):
    provider = serializers.CharField()
    scope = serializers.ChoiceField(choices=["all customers", "your reservations"])
    reservations = serializers.IntegerField()
    accepted_first_try = serializers.IntegerField()
    decided = serializers.IntegerField()
    failed_checks = serializers.IntegerField()
    incidents = SeverityCountsSerializer()
    clock_breaches = serializers.IntegerField()
    lines = ScorecardLineSerializer(many=True)


def scorecard_data(card: Scorecard) -> dict[str, Any]:
    return {
        "provider": card.provider.name,
        "scope": "all customers" if card.viewer_is_provider else "your reservations",
        "reservations": len(card.lines),
        "accepted_first_try": card.accepted_first_try,
        "decided": len(card.decided),
        "failed_checks": card.failed_checks,
        "incidents": card.incidents,
        "clock_breaches": card.breaches,
        "lines": [
            {
                "reservation": x.reservation.pk,
                "request": x.reservation.request.title,
                "buyer": x.reservation.request.buyer.name,
                "status": x.reservation.status,
                "burn_in_runs": x.runs,
                "accepted_first_try": x.first_try,
                "failed_checks": x.failed_checks,
                "incidents": {s: x.incidents[s] for s in SEVERITIES},
                "clock_breaches": x.breaches,
            }
            for x in card.lines
        ],
    }
