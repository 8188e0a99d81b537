from __future__ import annotations

from rest_framework import serializers

from api.serializers.common import OrganizationSerializer, ReadModelSerializer, stated
from orgs.choices import MemberRole
from orgs.models import MemberInvitation, Membership


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


class MemberInvitationSerializer(ReadModelSerializer[MemberInvitation]):
    """An invitation as its organisation's administrators see it: the address they typed,
    never anything of an account that has it."""

    invited_by = serializers.CharField(
        source="invited_by.username", read_only=True, allow_null=True, default=None
    )
    expired = serializers.BooleanField(source="is_expired", read_only=True)

    class Meta:
        model = MemberInvitation
        fields = [
            "id",
            "email",
            "role",
            "state",
            "invited_by",
            "created_at",
            "expires_at",
            "expired",
        ]
        read_only_fields = fields


class MemberInviteSerializer(serializers.Serializer):
    email = stated(
        serializers.CharField(
            max_length=254, help_text="The person's e-mail address; they join once they accept."
        ),
        {"type": "string", "format": "email", "maxLength": 254, "x-required": True},
    )
    role = serializers.ChoiceField(
        choices=MemberRole.choices,
        help_text="One of the organisation's kind's roles: requester, approver or admin for a "
        "buyer; engineer, approver or admin for a provider.",
    )


class MyInvitationSerializer(ReadModelSerializer[MemberInvitation]):
    """An invitation to the signed-in person's address, with the organisation that sent it."""

    organization = OrganizationSerializer(read_only=True)
    invited_by = serializers.CharField(
        source="invited_by.username", read_only=True, allow_null=True, default=None
    )
    expired = serializers.BooleanField(source="is_expired", read_only=True)

    class Meta:
        model = MemberInvitation
        fields = ["id", "organization", "role", "invited_by", "created_at", "expires_at", "expired"]
        read_only_fields = fields


class JoinedSerializer(ReadModelSerializer[Membership]):
    """The membership an accepted invitation made."""

    organization = OrganizationSerializer(read_only=True)
    since = serializers.DateTimeField(source="created_at", read_only=True)

    class Meta:
        model = Membership
        fields = ["organization", "role", "since"]
        read_only_fields = fields
