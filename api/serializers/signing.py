"""Signing identities and contract annex signatures with their validation, as the API shows them."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.serializers.common import NamedFileField, confirm_field
from signing.models import SigningIdentity
from signing.selectors import TRIAL_MARK


class SigningIdentitySerializer(serializers.ModelSerializer[SigningIdentity]):
    trial = serializers.BooleanField(source="is_trial", read_only=True)
    marking = serializers.SerializerMethodField()

    class Meta:
        model = SigningIdentity
        fields = [
            "id", "source", "trial", "marking", "subject", "issuer", "serial", "not_before",
            "not_after", "certificate_sha256", "created_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_marking(self, obj: SigningIdentity) -> str:
        return TRIAL_MARK if obj.is_trial else ""


class SigningIdentityStateSerializer(serializers.Serializer[Any]):
    identity = SigningIdentitySerializer(allow_null=True, help_text="None until one is set.")


class Pkcs12UploadSerializer(serializers.Serializer[Any]):
    pkcs12 = NamedFileField(help_text="The PKCS#12 (.p12/.pfx): certificate, key, chain.")
    password = serializers.CharField(
        required=False, allow_blank=True, default="", trim_whitespace=False
    )


class SignRequestSerializer(serializers.Serializer[Any]):
    confirm = confirm_field(
        "Must be true: signing is a deliberate act of the approver; without it the signature is "
        "refused: 400 naming `confirm`."
    )


class SignatureValidationSerializer(serializers.Serializer[Any]):
    party = serializers.CharField()
    organization = serializers.CharField()
    signer_name = serializers.CharField()
    signer_role = serializers.CharField()
    signed_at = serializers.DateTimeField(
        allow_null=True, help_text="The signing time the signature states (the signer's clock)."
    )
    timestamp_at = serializers.DateTimeField(
        allow_null=True, help_text="The RFC 3161 timestamp authority's time, when one stamped it."
    )
    recorded_at = serializers.DateTimeField()
    document_sha256 = serializers.CharField(help_text="SHA-256 of the PDF this signature made.")
    certificate_subject = serializers.CharField()
    certificate_issuer = serializers.CharField()
    certificate_not_after = serializers.DateTimeField(allow_null=True)
    found = serializers.BooleanField(help_text="The stored document carries this signature.")
    intact = serializers.BooleanField(help_text="The signed bytes hash to what was signed.")
    unchanged = serializers.BooleanField(
        help_text="The document is what this party signed, apart from later signatures."
    )
    document_state = serializers.SerializerMethodField()
    trusted = serializers.BooleanField(help_text="The certificate chains to a trust root.")
    trial = serializers.BooleanField(help_text="Issued by this instance's trial CA.")
    marking = serializers.SerializerMethodField()
    verdict = serializers.CharField()

    @extend_schema_field(serializers.ChoiceField(choices=["intact", "modified"]))
    def get_document_state(self, obj: Any) -> str:
        return "intact" if obj.unchanged else "modified"

    def get_marking(self, obj: Any) -> str:
        return TRIAL_MARK if obj.trial else ""


class AnnexSigningSerializer(serializers.Serializer[Any]):
    annex = serializers.IntegerField(source="annex.pk")
    version = serializers.IntegerField(source="annex.version")
    status = serializers.CharField(help_text="unsigned, buyer_signed, signed or superseded.")
    status_label = serializers.CharField()
    final = serializers.BooleanField(
        help_text="The version carries a signature: a regenerated annex is a new version."
    )
    issued_pdf_sha256 = serializers.CharField(source="annex.pdf_sha256")
    signed_pdf_sha256 = serializers.CharField(help_text="Empty while unsigned.")
    signed_pdf_url = serializers.SerializerMethodField()
    stored_matches = serializers.BooleanField(
        help_text="The stored signed PDF hashes to the SHA-256 recorded when it was signed."
    )
    all_ok = serializers.BooleanField()
    readable = serializers.BooleanField()
    error = serializers.CharField()
    timestamp_authority = serializers.CharField(help_text="Empty when none is configured.")
    clock_note = serializers.CharField()
    signatures = SignatureValidationSerializer(many=True)

    def get_signed_pdf_url(self, obj: Any) -> str | None:
        if not obj.signed_pdf_sha256:
            return None
        return reverse("api:annex-signed-pdf", args=[obj.annex.pk])
