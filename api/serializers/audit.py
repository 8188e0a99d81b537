from __future__ import annotations

from rest_framework import serializers

from audit.models import AuditEntry


class AuditEntrySerializer(serializers.ModelSerializer[AuditEntry]):
    actor = serializers.CharField(source="actor_name", help_text="Username; empty: the system.")
    organization = serializers.CharField(
        source="org.slug", allow_null=True, help_text="The organisation the actor acted for."
    )
    object = serializers.CharField(source="obj_key")

    class Meta:
        model = AuditEntry
        fields = [
            "seq",
            "at",
            "actor",
            "organization",
            "party",
            "action",
            "object",
            "before",
            "after",
            "reason",
            "prev_sha256",
            "sha256",
        ]
        read_only_fields = fields
