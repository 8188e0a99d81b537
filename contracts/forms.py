from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.db import models

from contracts.availability_fields import AVAILABILITY_MARKER, SeveritiesField, TiersField
from contracts.defaults import SEVERITIES, terms_templates
from contracts.models import HandoffTerms
from contracts.validation import REQUIRED_OWNER_FIELDS, validate_terms

TEXT = forms.Textarea(attrs={"rows": 4})

TEXT_FIELDS = (
    "buyer_evidence",
    "provider_evidence",
    "records_location",
    "workaround_approval",
    "excl_customer_caused",
    "excl_buyer_software",
    "partial_capacity_billing",
    "spares",
    "own_hardware",
    "s1_escalation",
    "s2_escalation",
    "s3_escalation",
)

TERMS_FIELDSETS: list[tuple[str, list[str]]] = [
    (
        "Owners and records",
        [
            "buyer_owner_name",
            "buyer_owner_contact",
            "provider_owner_name",
            "provider_owner_contact",
            "buyer_evidence",
            "provider_evidence",
            "records_location",
        ],
    ),
    ("Shared definition of “degraded”", ["degraded_step_time_pct", "degraded_window_minutes"]),
    (
        "Recovery acceptance",
        [
            "recovery_diagnostics_all_gpus",
            "recovery_nccl_margin_pct",
            "recovery_smoke_margin_pct",
            "recovery_loss_continuity",
            "recovery_no_recurrence_hours",
            "workaround_approval",
        ],
    ),
    (
        "Exclusions and support windows",
        [
            "excl_customer_caused",
            "excl_buyer_software",
            "maintenance_notice_hours",
            "coverage_hours",
            "coverage_timezone",
            "partial_capacity_billing",
            "spares",
            "own_hardware",
        ],
    ),
    (
        "Availability and credits",
        [
            "sla_credit_tiers",
            "sla_credit_cap_pct",
            "downtime_severities",
            "whole_allocation_severities",
            "degraded_downtime_pct",
            "clock_breach_credit_pct",
            "outage_not_billed",
        ],
    ),
]
SEVERITY_FIELDS = [
    f"{key}_{part}" for key, _ in SEVERITIES for part in ("response_minutes", "restore_minutes")
] + [f"{key}_escalation" for key, _ in SEVERITIES]


class TermsTemplateForm(forms.Form):
    template = forms.ChoiceField(
        choices=[(t.key, t.name) for t in terms_templates()],
        widget=forms.RadioSelect,
        initial=terms_templates()[0].key,
    )


SEVERITY_PARTS = (
    ("response_minutes", "first response, minutes"),
    ("restore_minutes", "restore, minutes"),
    ("escalation", "escalation rule"),
)


def _model_texts(name: str) -> dict[str, Any]:
    field = HandoffTerms._meta.get_field(name)
    assert isinstance(field, models.Field)  # a column of the terms, never a relation
    return {"label": field.verbose_name, "help_text": field.help_text}


class HandoffTermsForm(forms.ModelForm):
    sla_credit_tiers = TiersField()
    # Declared here for the boxes; each keeps its model field's label and help.
    downtime_severities = SeveritiesField(**_model_texts("downtime_severities"))
    whole_allocation_severities = SeveritiesField(**_model_texts("whole_allocation_severities"))
    # Rendered with the availability fieldset: a post without it (an older client) leaves the
    # tiers and severities as they are, since unticked boxes send nothing at all.
    availability_shown = forms.CharField(widget=forms.HiddenInput, required=False, initial="1")

    class Meta:
        model = HandoffTerms
        fields = [name for _, names in TERMS_FIELDSETS for name in names] + SEVERITY_FIELDS
        widgets = dict.fromkeys(TEXT_FIELDS, TEXT)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, message in REQUIRED_OWNER_FIELDS.items():
            self.fields[name].required = True
            self.fields[name].error_messages["required"] = message
        # The severity table shows each level once per row; each box still needs its own name.
        for key, label in SEVERITIES:
            for part, what in SEVERITY_PARTS:
                self.fields[f"{key}_{part}"].widget.attrs["aria-label"] = f"{label}: {what}"

    def _kept(self, name: str) -> Any:
        if AVAILABILITY_MARKER in self.data:
            return self.cleaned_data.get(name)
        return getattr(self.instance, name)

    def clean_sla_credit_tiers(self) -> Any:
        return self._kept("sla_credit_tiers")

    def clean_downtime_severities(self) -> Any:
        return self._kept("downtime_severities")

    def clean_whole_allocation_severities(self) -> Any:
        return self._kept("whole_allocation_severities")

    def fieldsets(self) -> list[tuple[str, list[forms.BoundField]]]:
        return [(title, [self[name] for name in names]) for title, names in TERMS_FIELDSETS]

    def severity_rows(self) -> list[dict[str, Any]]:
        return [
            {
                "label": label,
                "response": self[f"{key}_response_minutes"],
                "restore": self[f"{key}_restore_minutes"],
                "escalation": self[f"{key}_escalation"],
            }
            for key, label in SEVERITIES
        ]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        errors = validate_terms(cleaned)
        if errors:
            raise ValidationError(errors)
        return cleaned
