from django.contrib import admin

from core.admin_tools import RecordAdmin
from questionnaire.models import BidQuestionnaire, KeptConflicts, Question, QuestionSet


class QuestionInline(admin.TabularInline):
    model = Question
    extra = 0
    fields = ("key", "section", "text", "answer_type", "required")
    readonly_fields = fields
    can_delete = False


@admin.register(QuestionSet)
class QuestionSetAdmin(admin.ModelAdmin):
    list_display = ["name", "request"]
    list_select_related = ["request"]
    search_fields = ["name", "request__title"]
    inlines = [QuestionInline]


@admin.register(Question)
class QuestionAdmin(RecordAdmin):
    """Edited through the buyer's question-set page, which versions the set."""

    list_display = ["key", "section", "answer_type", "required", "question_set"]
    list_filter = ["answer_type", "required"]
    list_select_related = ["question_set"]
    search_fields = ["key", "text"]


@admin.register(BidQuestionnaire)
class BidQuestionnaireAdmin(RecordAdmin):
    list_display = ["bid", "question_set"]
    list_select_related = ["bid__provider", "bid__request", "question_set"]


@admin.register(KeptConflicts)
class KeptConflictsAdmin(RecordAdmin):
    """Kept by the provider on its bid page (audited there)."""

    list_display = ["bid", "kept_by", "kept_at"]
    list_select_related = ["bid__provider", "kept_by"]
    search_fields = ["bid__provider__name", "reason"]
