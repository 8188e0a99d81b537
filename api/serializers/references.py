"""A fixture's reference runs as the API shows them: what was uploaded, and how it checked."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from acceptance.models import FixtureReference, ReferenceSource
from api.serializers.common import NamedFileField


class ReferenceCheckSerializer(serializers.Serializer[dict]):
    name = serializers.CharField()
    status = serializers.CharField()
    measured = serializers.CharField()
    expected = serializers.CharField()
    message = serializers.CharField()
    line = serializers.IntegerField(allow_null=True)


class FixtureReferenceSerializer(serializers.ModelSerializer[FixtureReference]):
    version = serializers.IntegerField(source="fixture_version.number", read_only=True)
    kind = serializers.ChoiceField(source="source", choices=ReferenceSource.choices, read_only=True)
    checks = ReferenceCheckSerializer(many=True, read_only=True)
    file_url = serializers.SerializerMethodField()

    class Meta:
        model = FixtureReference
        fields = [
            "id",
            "version",
            "kind",
            "cluster",
            "original_name",
            "size",
            "sha256",
            "passed",
            "error",
            "error_line",
            "summary",
            "checks",
            "uploaded_at",
            "file_url",
        ]
        read_only_fields = fields

    def get_file_url(self, obj: FixtureReference) -> str:
        return reverse("api:fixture-reference-file", args=[obj.pk])


class FixtureReferenceUploadSerializer(serializers.Serializer[None]):
    file = NamedFileField(help_text="The JSON lines fixture_allreduce.py printed.")
    kind = serializers.ChoiceField(
        choices=ReferenceSource.choices,
        default=ReferenceSource.CPU_DRY_RUN,
        help_text="cpu_dry_run (gloo) or other_cluster (a pre-award baseline).",
    )
    cluster = serializers.CharField(
        required=False, allow_blank=True, default="", help_text="For a run on another cluster."
    )
