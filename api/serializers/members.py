from __future__ import annotations

from rest_framework import serializers

from orgs.models import Membership


class MemberSerializer(serializers.ModelSerializer[Membership]):
    username = serializers.CharField(source="user.username", read_only=True)
    name = serializers.CharField(
        source="user.get_full_name", read_only=True, help_text="Empty if not given."
    )
    email = serializers.CharField(
        source="user.email", read_only=True, help_text="Empty if none is on record."
    )
    since = serializers.DateTimeField(source="created_at", read_only=True)

    class Meta:
        model = Membership
        fields = ["id", "username", "name", "email", "role", "since"]
        read_only_fields = fields
