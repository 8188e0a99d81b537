from __future__ import annotations

from rest_framework import serializers

from notices.models import Notice
from notices.services import absolute_url


class NoticeSerializer(serializers.ModelSerializer[Notice]):
    id = serializers.UUIDField(
        source="public_id", read_only=True, help_text="The notice's id: mark it read with it."
    )
    event_label = serializers.CharField(source="get_event_display")
    organization = serializers.CharField(
        source="organization.slug", help_text="The organisation the notice is for."
    )
    url = serializers.SerializerMethodField(help_text="The object's page (SITE_URL + path).")
    unread = serializers.BooleanField()

    class Meta:
        model = Notice
        fields = [
            "id",
            "event",
            "event_label",
            "organization",
            "subject",
            "body",
            "path",
            "url",
            "created_at",
            "read_at",
            "unread",
        ]
        read_only_fields = fields

    def get_url(self, notice: Notice) -> str:
        return absolute_url(notice.path)
