from __future__ import annotations

from rest_framework import serializers

from audit.models import AuditEntry


class AuditEntrySerializer(serializers.ModelSerializer[AuditEntry]):
    actor = serializers.CharField(source="actor_name", help_text="Username; empty: the system.")
    organization = serializers.CharField(
        source="org.slug", allow_null=True, help_text="The organisation the actor acted for."
    )
    object = serializers.CharField(source="obj_key")
    number = serializers.IntegerField(
        help_text="The entry's place in the object's history as your organisation reads it "
        "(1: the oldest). The chain's global sequence and hashes are staff-only "
        "(`manage.py verify_audit`): they would count other parties' entries."
    )

    class Meta:
        model = AuditEntry
        fields = [
            "number",
            "at",
            "actor",
            "organization",
            "party",
            "action",
            "object",
            "before",
            "after",
            "reason",
        ]
        read_only_fields = fields
