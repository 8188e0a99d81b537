"""Issued contract annexes (immutable PDF versions) as the API lists them."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from annexes.models import Annex, AnnexJob, AnnexKind

RESERVATION_HELP = (
    "A split award's reservation (one lot and provider) whose contract annex or statement this "
    "is; null: the request's."
)


class AnnexSerializer(serializers.ModelSerializer[Annex]):
    request = serializers.IntegerField(source="request_id", read_only=True)
    reservation = serializers.IntegerField(
        source="reservation_id", read_only=True, allow_null=True, help_text=RESERVATION_HELP
    )
    download_url = serializers.SerializerMethodField()

    class Meta:
        model = Annex
        fields = [
            "id",
            "request",
            "reservation",
            "kind",
            "period",
            "version",
            "snapshot_sha256",
            "pdf_sha256",
            "pdf_bytes",
            "pages",
            "created_at",
            "download_url",
        ]
        read_only_fields = fields

    def get_download_url(self, obj: Annex) -> str:
        return reverse("api:annex-pdf", args=[obj.pk])


class AnnexRequestSerializer(serializers.Serializer[None]):
    kind = serializers.ChoiceField(choices=AnnexKind.choices, default=AnnexKind.CONTRACT)
    period = serializers.RegexField(
        r"^\d{4}-\d{2}$",
        required=False,
        default="",
        allow_blank=True,
        help_text="A monthly statement's month, e.g. 2027-01 (statements only).",
    )
    reservation = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        help_text="On a split award, the reservation (one lot and provider) whose contract "
        "annex or statement to generate: required there, ignored otherwise.",
    )


class AnnexJobSerializer(serializers.ModelSerializer[AnnexJob]):
    annex = AnnexSerializer(read_only=True, allow_null=True, help_text="Null until rendered.")
    reservation = serializers.IntegerField(
        source="reservation_id", read_only=True, allow_null=True, help_text=RESERVATION_HELP
    )
    status_url = serializers.SerializerMethodField()

    class Meta:
        model = AnnexJob
        fields = [
            "id",
            "reservation",
            "kind",
            "period",
            "status",
            "error",
            "reused",
            "requested_at",
            "annex",
            "status_url",
        ]
        read_only_fields = fields

    def get_status_url(self, obj: AnnexJob) -> str:
        return reverse("api:annex-job", args=[obj.pk])
