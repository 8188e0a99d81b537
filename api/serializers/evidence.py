"""Evidence and check rows as the API shows them."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from rest_framework import serializers

from acceptance.models import Check, Evidence


class EvidenceSerializer(serializers.ModelSerializer[Evidence]):
    name = serializers.CharField(source="original_name")
    node = serializers.CharField(source="node_label")
    download_url = serializers.SerializerMethodField()
    withdrawn = serializers.SerializerMethodField()

    class Meta:
        model = Evidence
        fields = [
            "id",
            "name",
            "size",
            "sha256",
            "node",
            "kind",
            "state",
            "error",
            "error_line",
            "withdrawn",
            "uploaded_at",
            "download_url",
        ]

    def get_download_url(self, obj: Evidence) -> str:
        # A pilot's files download from the pilot's routes (the view says so in the context).
        view = self.context.get("download_view", "burnin:evidence-download")
        return reverse(view, args=[obj.pk])

    def get_withdrawn(self, obj: Evidence) -> bool:
        return obj.withdrawn_at is not None


class CheckSerializer(serializers.ModelSerializer[Check]):
    evidence_id = serializers.IntegerField(allow_null=True)
    code = serializers.CharField(
        read_only=True,
        help_text="Names the check in an override's `waived` list (set by the view).",
    )

    class Meta:
        model = Check
        fields = [
            "code",
            "name",
            "group",
            "status",
            "measured",
            "expected",
            "mandatory",
            "message",
            "node",
            "evidence_id",
            "line",
        ]


def upload_result(
    evidence: Evidence, *, duplicate: bool, download_view: str = "burnin:evidence-download"
) -> dict[str, Any]:
    body = dict(EvidenceSerializer(evidence, context={"download_view": download_view}).data)
    body["duplicate"] = duplicate
    if duplicate:
        body["message"] = f"already uploaded as {evidence.original_name} (evidence {evidence.pk})"
    return body
