"""Usage uploads and their reconciliation, as the API shows them."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from rest_framework import serializers

from api.serializers.common import NamedFileField
from billing.bills import BILL_FIELDS, PROFILE_CHOICES
from billing.models import UsageDifference, UsageUnit, UsageUpload
from engine.billing import FIELDS


class UsageUploadSummarySerializer(serializers.ModelSerializer[UsageUpload]):
    name = serializers.CharField(source="original_name", read_only=True)
    uploaded_by = serializers.CharField(
        source="uploaded_by.username", allow_null=True, read_only=True
    )
    differences = serializers.IntegerField(source="difference_count", read_only=True)
    download_url = serializers.SerializerMethodField()

    class Meta:
        model = UsageUpload
        fields = [
            "id", "name", "size", "sha256", "state", "error", "error_line", "error_column",
            "lines", "totals", "differences", "uploaded_at", "uploaded_by", "reconciled_at",
            "download_url",
        ]  # fmt: skip
        read_only_fields = fields

    def get_download_url(self, obj: UsageUpload) -> str:
        return reverse("billing:usage-file", args=[obj.pk])


class UsageDifferenceSerializer(serializers.ModelSerializer[UsageDifference]):
    class Meta:
        model = UsageDifference
        fields = ["line", "rule", "message", "billed_usd", "allowed_usd"]
        read_only_fields = fields


class UsageUploadSerializer(UsageUploadSummarySerializer):
    """One upload: its state, totals, the count per rule, and one page of differences
    (`?rule=` filters, `?page=` pages; 100 a page)."""

    mapping = serializers.JSONField(read_only=True)
    mapping_scope = serializers.CharField(
        read_only=True,
        help_text="'provider': read with the provider's saved mapping; 'file': a mapping set "
        "for this file alone (a buyer's; the provider's saved one is unchanged).",
    )
    mapping_set_by = serializers.CharField(
        source="mapping_set_by.username", allow_null=True, read_only=True
    )
    reconciled_mapping = serializers.JSONField(
        read_only=True, help_text="The mapping the latest reconciliation ran with, exactly."
    )
    attempts = serializers.IntegerField(read_only=True)
    headers = serializers.ListField(child=serializers.CharField(), read_only=True)
    by_rule = serializers.DictField(child=serializers.IntegerField(), read_only=True)
    listed_all = serializers.BooleanField(read_only=True)
    warnings = serializers.ListField(
        child=serializers.DictField(),
        read_only=True,
        help_text="What the latest reconciliation could not check: an outage on a node no billed "
        "id is matched to ('unmatched-outage'), lines of a billed id matched to no node "
        "('unmatched-billed', with line numbers), no node named at all ('no-nodes').",
    )
    difference_page = serializers.SerializerMethodField()

    class Meta(UsageUploadSummarySerializer.Meta):
        fields = [
            *UsageUploadSummarySerializer.Meta.fields,
            "headers", "mapping", "mapping_scope", "mapping_set_by", "reconciled_mapping",
            "attempts", "by_rule", "listed_all", "warnings", "difference_page",
        ]  # fmt: skip
        read_only_fields = fields

    def get_difference_page(self, obj: UsageUpload) -> dict[str, Any]:
        return dict(self.context.get("difference_page") or {})


class UsageUploadWriteSerializer(serializers.Serializer):
    file = NamedFileField(help_text="The provider's usage or invoice lines, CSV or XLSX.")


class UsageMappingWriteSerializer(serializers.Serializer):
    columns = serializers.DictField(
        child=serializers.CharField(allow_blank=True),
        help_text="Our field → the file's header. Fields: " + ", ".join(FIELDS) + "; with a "
        "`profile`: " + ", ".join(BILL_FIELDS) + ".",
    )
    profile = serializers.ChoiceField(
        choices=[("", "our simple column mapping"), *PROFILE_CHOICES.items()],
        required=False,
        allow_blank=True,
        help_text="Read the file as this bill layout (engine profiles); empty: the simple "
        "column mapping with `unit` and `date_format`.",
    )
    overrides = serializers.DictField(
        child=serializers.CharField(allow_blank=True),
        required=False,
        help_text="What was detected, corrected: delimiter, decimal ('.' or ','), date_order "
        "(iso, day-first, month-first), header_row, sheet. A changed delimiter, header row or "
        "sheet reads the file again (state `mapping`) before the columns are confirmed.",
    )
    answers = serializers.DictField(
        child=serializers.IntegerField(min_value=0, max_value=1024),
        required=False,
        help_text="Instance type → GPUs in one instance (0: not a GPU instance), answering the "
        "inspection's questions.",
    )
    node_map = serializers.DictField(
        child=serializers.CharField(allow_blank=True),
        required=False,
        help_text="Billed node id → the reservation's node, as confirmed (the inspection's "
        "`node_match.matched` is the proposal).",
    )
    unit = serializers.ChoiceField(choices=UsageUnit.choices, default=UsageUnit.HOURS)
    date_format = serializers.CharField(
        required=False, allow_blank=True, max_length=40, help_text="strptime; empty for ISO 8601."
    )


class UsagePreviewRowSerializer(serializers.Serializer):
    line = serializers.IntegerField()
    cells = serializers.DictField(child=serializers.CharField(allow_blank=True))
    gpu_hours = serializers.CharField(allow_blank=True)
    amount = serializers.CharField(allow_blank=True)
    error = serializers.CharField(allow_blank=True)


class UsageMappingSerializer(serializers.Serializer):
    """The mapping this file is read with, the provider's saved one, and the first rows as read."""

    headers = serializers.ListField(child=serializers.CharField())
    mapping = serializers.JSONField()
    provider_mapping = serializers.JSONField(allow_null=True)
    field_labels = serializers.DictField(child=serializers.CharField())
    preview_error = serializers.CharField(allow_blank=True)
    preview = UsagePreviewRowSerializer(many=True)
    reader = serializers.ChoiceField(
        choices=["columns", "profile"],
        help_text="'profile': a bill layout read by its profile (see `inspection`); 'columns': "
        "our simple column mapping (see `preview`).",
    )
    inspection = serializers.JSONField(
        help_text="What reading the whole file found, stored by the worker ({} while it reads): "
        "detected (printable), settings, profile and profile_label, headers, columns "
        "(proposed), preview (the first lines as read), errors (capped) and more_errors, "
        "questions, billed_nodes, contract_nodes, node_match (matched, how, unmatched_billed, "
        "unmatched_nodes), totals per charge class; or error when it cannot be read."
    )
    inspected_at = serializers.DateTimeField(allow_null=True)
    profiles = serializers.DictField(child=serializers.CharField())
    bill_fields = serializers.DictField(child=serializers.CharField())
