from django.contrib import admin
from django.http import HttpRequest

from core.admin_tools import RecordAdmin
from evaluation.models import (
    AwardBasis,
    AwardScenario,
    BidDebrief,
    BidScore,
    ComparisonPresentation,
    EvaluatorView,
    Judgement,
    ScenarioAward,
    ScoringRun,
)


@admin.register(ScoringRun)
class ScoringRunAdmin(admin.ModelAdmin):
    """Read-only record of what was scored; re-score from the comparison page."""

    list_display = ["request", "status", "stale", "bid_count", "attempts", "finished_at"]
    list_filter = ["status", "stale"]
    list_select_related = ["request"]
    exclude = ["result"]
    readonly_fields = [
        f.name for f in ScoringRun._meta.get_fields() if f.concrete and f.name != "result"
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(BidScore)
class BidScoreAdmin(admin.ModelAdmin):
    list_display = ["label", "run", "revision", "qualified", "rank", "total"]
    list_filter = ["qualified"]
    list_select_related = ["run__request", "revision__bid__provider"]
    readonly_fields = [f.name for f in BidScore._meta.get_fields() if f.concrete]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(AwardBasis)
class AwardBasisAdmin(admin.ModelAdmin):
    """Read-only: which ranking each award followed (written by the award itself)."""

    list_display = ["request", "view", "label", "first_in_view", "followed", "recorded_at"]
    list_select_related = ["request"]
    readonly_fields = [f.name for f in AwardBasis._meta.get_fields() if f.concrete]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(EvaluatorView)
class EvaluatorViewAdmin(RecordAdmin):
    """Read-only: a buyer member's own weights, changed on the comparison page by that member."""

    list_display = ["request", "evaluator", "updated_at"]
    list_select_related = ["request", "evaluator"]


@admin.register(Judgement)
class JudgementAdmin(RecordAdmin):
    """Read-only: an evaluator's 1-5 rating of one bid on one qualitative criterion."""

    list_display = ["view", "bid", "criterion", "score"]
    list_filter = ["criterion"]
    list_select_related = ["view__request", "view__evaluator", "bid__provider"]


@admin.register(ComparisonPresentation)
class ComparisonPresentationAdmin(RecordAdmin):
    """Read-only: what the comparison prints for a run, rebuilt whenever its inputs' fingerprint
    changes (the stored cells and matrix are left out of the form: they run to megabytes)."""

    list_display = ["run", "anonymised", "fingerprint", "built_at"]
    list_select_related = ["run__request"]
    exclude = ["columns", "groups", "summary", "matrix_html"]


@admin.register(BidDebrief)
class BidDebriefAdmin(RecordAdmin):
    """What each bidder was told at the award (written by the award itself)."""

    list_display = ["bid", "won", "created_at"]
    list_filter = ["won"]
    list_select_related = ["bid__provider", "bid__request"]


@admin.register(AwardScenario)
class AwardScenarioAdmin(RecordAdmin):
    """Defined and solved on the request's scenarios page (audited there)."""

    list_display = ["name", "request", "objective", "status", "solved_at"]
    list_filter = ["status", "objective"]
    list_select_related = ["request"]
    exclude = ["result"]


@admin.register(ScenarioAward)
class ScenarioAwardAdmin(RecordAdmin):
    """Made by awarding a scenario on its page or by the API (audited there)."""

    list_display = ["scenario_name", "request", "awarded_by", "awarded_at"]
    list_select_related = ["request", "awarded_by"]
    exclude = ["result"]
