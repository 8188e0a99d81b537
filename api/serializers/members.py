from __future__ import annotations

from rest_framework import serializers

from orgs.models import Membership


class MemberSerializer(serializers.ModelSerializer[Membership]):
    username = serializers.CharField(source="user.username")
    name = serializers.CharField(source="user.get_full_name", help_text="Empty if not given.")
    email = serializers.EmailField(source="user.email")
    since = serializers.DateTimeField(source="created_at")

    class Meta:
        model = Membership
        fields = ["id", "username", "name", "email", "role", "since"]
        read_only_fields = fields
