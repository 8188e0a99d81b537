from django.contrib import admin

from notices.models import Notice, NoticePreference


@admin.register(Notice)
class NoticeAdmin(admin.ModelAdmin):
    list_display = ["created_at", "event", "recipient", "organization", "subject", "read_at"]
    list_filter = ["event"]
    list_select_related = ["recipient", "organization"]
    search_fields = ["key", "subject", "recipient__username"]
    readonly_fields = ["emailed_at", "read_at", "created_at"]


@admin.register(NoticePreference)
class NoticePreferenceAdmin(admin.ModelAdmin):
    list_display = ["user", "event", "email", "in_app"]
    list_filter = ["event"]
