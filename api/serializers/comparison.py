"""The comparison matrix as JSON: the same build the page and the CSV/XLSX exports read."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from rest_framework import serializers

from api.renderers import PrintedJSON
from api.serializers.pilots import PilotSectionSerializer
from evaluation.comparison import Comparison
from evaluation.matrix import groups_api
from evaluation.models import ScoringRun
from evaluation.rounds import RoundComparison


class ExplainSerializer(serializers.Serializer):
    label = serializers.CharField()  # type: ignore[assignment]
    formula = serializers.CharField()
    value = serializers.CharField()


class CellSerializer(serializers.Serializer):
    display = serializers.CharField()
    value = serializers.JSONField(allow_null=True, help_text="A number, a text, or null.")
    best = serializers.BooleanField()
    note = serializers.CharField()
    explain = ExplainSerializer(many=True)


class RowSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]
    unit = serializers.CharField()
    better = serializers.CharField(allow_null=True)
    cells = CellSerializer(many=True)


class GroupSerializer(serializers.Serializer):
    title = serializers.CharField()
    rows = RowSerializer(many=True)


class ColumnSerializer(serializers.Serializer):
    name = serializers.CharField()
    bid = serializers.IntegerField(allow_null=True, help_text="null when labels are anonymous.")
    revision = serializers.IntegerField()
    qualified = serializers.BooleanField()
    rank = serializers.IntegerField(allow_null=True)
    total = serializers.FloatField()
    disqualifications = serializers.ListField(child=serializers.CharField())


class RoundFiguresSerializer(serializers.Serializer):
    revision = serializers.IntegerField()
    price_per_gpu_hour = serializers.DecimalField(max_digits=8, decimal_places=3, allow_null=True)
    effective_price = serializers.FloatField(allow_null=True, help_text="USD per useful GPU-hour.")
    total = serializers.FloatField()
    rank = serializers.IntegerField(allow_null=True, help_text="null: disqualified.")


class RoundRowSerializer(serializers.Serializer):
    name = serializers.CharField()
    bid = serializers.IntegerField(allow_null=True, help_text="null while anonymised.")
    shortlisted = serializers.BooleanField()
    revised = serializers.BooleanField(help_text="Submitted a revision in the final round.")
    round_1 = RoundFiguresSerializer(allow_null=True)
    final_round = RoundFiguresSerializer(
        allow_null=True, help_text="null: not shortlisted for the final round."
    )


def rounds_data(rounds: RoundComparison | None, *, anonymised: bool) -> list[dict[str, Any]] | None:
    if rounds is None:
        return None
    return [
        {
            "name": row.name,
            "bid": None if anonymised else row.bid_id,
            "shortlisted": row.shortlisted,
            "revised": row.revised,
            "round_1": asdict(row.first) if row.first else None,
            "final_round": asdict(row.final) if row.final else None,
        }
        for row in rounds.rows
    ]


class MoveSerializer(serializers.Serializer):
    criterion = serializers.CharField()
    change = serializers.CharField(help_text="The weight's change, e.g. “+25 %”.")
    winner = serializers.CharField(help_text="Who wins with that weight.")


class ShareSerializer(serializers.Serializer):
    name = serializers.CharField()
    share = serializers.FloatField(help_text="The share of random weight draws won, 0 to 1.")


class SensitivitySerializer(serializers.Serializer):
    """How firm the winner is against other weights; empty ({}) until a run is shown."""

    verdict = serializers.CharField(required=False)
    winner = serializers.CharField(required=False)
    winner_share = serializers.FloatField(required=False)
    draws = serializers.IntegerField(required=False)
    draws_text = serializers.CharField(required=False)
    moves_tested = serializers.IntegerField(required=False)
    changing_moves = MoveSerializer(many=True, required=False)
    shares = ShareSerializer(many=True, required=False)


class ComparisonSerializer(serializers.Serializer):
    """`state`: sealed, no_bids, current, pending, failed or outdated. Sealed: no columns."""

    request = serializers.IntegerField()
    state = serializers.CharField()
    stale = serializers.BooleanField()
    anonymised = serializers.BooleanField()
    run = serializers.IntegerField(
        allow_null=True,
        help_text="The scoring run shown, numbered within this request (1: its first run).",
    )
    columns = ColumnSerializer(many=True)
    groups = GroupSerializer(many=True)
    sensitivity = SensitivitySerializer()
    rounds = RoundRowSerializer(
        many=True,
        allow_null=True,
        required=False,
        help_text="Round 1 and the best-and-final round side by side, per bid; null without a "
        "final round or while it is sealed.",
    )
    pilots = PilotSectionSerializer(
        required=False,
        help_text="Shortlisted bids' claimed figures beside those their pilots verified, and "
        "whether scoring uses the verified ones; absent while sealed.",
    )


def comparison_data(view: Comparison, *, printed: bool = False) -> dict[str, Any]:
    """`printed`: the matrix as stored printed for this API (`PrintedJSON`, written into the
    answer unparsed by `PrintedJSONRenderer`) where the presentation holds it."""
    columns = [
        {
            "name": col.name,
            "bid": None if view.anonymised else col.bid_id,
            "revision": col.revision_number,
            "qualified": col.qualified,
            "rank": col.rank,
            "total": col.total,
            "disqualifications": col.reasons,
        }
        for col in view.columns
    ]
    groups: Any = (
        PrintedJSON(view.groups_json) if printed and view.groups_json else groups_api(view.groups)
    )
    return {
        "request": view.request.pk,
        "state": view.state,
        "stale": view.stale,
        "anonymised": view.anonymised,
        "run": _run_number(view.shown_run),
        "columns": columns,
        "groups": groups,
        # In the schema's key order: the stored presentation keeps it as JSONB, which orders
        # an object's keys its own way, so the first answer after scoring and every later one
        # would otherwise list the same keys differently.
        "sensitivity": SensitivitySerializer().to_representation(view.sensitivity),
    }


def comparison_payload(
    view: Comparison,
    rounds: RoundComparison | None,
    pilots: dict[str, Any] | None = None,
    *,
    printed: bool = False,
) -> dict[str, Any]:
    """What ComparisonSerializer prints, built directly. The matrix's cells, rows and columns
    are already JSON types; running them through the nested serializers field by field (some
    18,000 to_representation calls for 20 bids) was half of the endpoint's time. The
    serializer stays the schema; tests/api/v1/test_comparison_payload.py asserts both agree.
    `printed`: see `comparison_data`."""
    data = comparison_data(view, printed=printed)
    for column in data["columns"]:
        column["total"] = float(column["total"])
    rows = rounds_data(rounds, anonymised=view.anonymised)
    data["rounds"] = None if rows is None else RoundRowSerializer(rows, many=True).data
    if pilots is not None:
        data["pilots"] = pilots
    return data


def _run_number(run: ScoringRun | None) -> int | None:
    """The run's place among its request's runs: a run's id is global, and every sealed
    submit on any request queues a run, so the id would count other buyers' bids."""
    if run is None:
        return None
    return ScoringRun.objects.filter(request_id=run.request_id, pk__lte=run.pk).count()
