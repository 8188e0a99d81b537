"""A provider's scorecard as JSON: the same figures as the page, for the viewer's own rows."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from scorecards.realised import Realised
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
    # Delivered figures: on this page's lines only (null on the others and before acceptance).
    availability_pct = serializers.FloatField(allow_null=True)
    credits_usd = serializers.FloatField(allow_null=True)
    lost_gpu_hours = serializers.FloatField(allow_null=True)
    realised_usd_per_useful_gpu_hour = serializers.FloatField(allow_null=True)
    predicted_usd_per_useful_gpu_hour = serializers.FloatField(allow_null=True)
    difference_explained = serializers.ListField(child=serializers.CharField())


class ScorecardSerializer(serializers.Serializer):
    provider = serializers.CharField()
    scope = serializers.ChoiceField(choices=["all customers", "your reservations"])
    reservations = serializers.IntegerField()
    accepted_first_try = serializers.IntegerField()
    decided = serializers.IntegerField()
    failed_checks = serializers.IntegerField()
    incidents = SeverityCountsSerializer()
    clock_breaches = serializers.IntegerField()
    realised_node_mtbf_hours = serializers.FloatField(allow_null=True)
    track_record = serializers.CharField(allow_null=True)
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    lines = ScorecardLineSerializer(many=True)


def _num(value: Any) -> float | None:
    return None if value is None else float(value)


def _delivered(r: Realised | None) -> dict[str, Any]:
    return {
        "availability_pct": _num(r.availability_pct) if r else None,
        "credits_usd": _num(r.credits) if r else None,
        "lost_gpu_hours": _num(r.lost_gpu_hours) if r else None,
        "realised_usd_per_useful_gpu_hour": _num(r.cost_per_useful) if r else None,
        "predicted_usd_per_useful_gpu_hour": (
            r.predicted.cost_per_useful if r and r.predicted else None
        ),
        "difference_explained": list(r.reasons) if r else [],
    }


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
        "realised_node_mtbf_hours": card.realised_mtbf_hours,
        "track_record": card.history.summary if card.history else None,
        "page": card.page.number if card.page else 1,
        "pages": card.page.paginator.num_pages if card.page else 1,
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
                **_delivered(x.realised),
            }
            for x in (card.page or card.lines)
        ],
    }
