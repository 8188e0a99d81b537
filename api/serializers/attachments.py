"""A bid's files as the API shows them: what was attached, its checksum and where to fetch it."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from api.serializers.common import NamedFileField
from bids.models import BidAttachment


class BidAttachmentSerializer(serializers.ModelSerializer[BidAttachment]):
    name = serializers.CharField(source="original_name", read_only=True)
    first_revision = serializers.IntegerField(
        read_only=True,
        allow_null=True,
        help_text="The first submitted revision that carried the file; null until submitted.",
    )
    file_url = serializers.SerializerMethodField()

    class Meta:
        model = BidAttachment
        fields = [
            "id",
            "name",
            "content_type",
            "size",
            "sha256",
            "description",
            "first_revision",
            "uploaded_at",
            "file_url",
        ]
        read_only_fields = fields

    def get_file_url(self, obj: BidAttachment) -> str:
        return reverse("api:bid-attachment-file", args=[obj.bid_id, obj.pk])


class BidAttachmentUploadSerializer(serializers.Serializer[None]):
    file = NamedFileField(
        help_text="A PDF, PNG, JPEG or UTF-8 text file; its kind is read from its bytes."
    )
    description = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=200
    )


class RevisionAttachmentSerializer(serializers.Serializer[dict]):
    """A file as a submitted revision recorded it (frozen with the revision)."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    size = serializers.IntegerField()
    sha256 = serializers.CharField()
    content_type = serializers.CharField()
    description = serializers.CharField()
