"""Handoff terms per request: typed fields, and an immutable snapshot on every change."""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from bids.models import CapacityRequest, Lot
from contracts.defaults import DEFAULT_TERMS_TEMPLATE, STANDARD
from core.limits import TEXT_LIMIT

PCT = [MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("100"))]
MINUTES = [MinValueValidator(1)]


def _minutes(label: str, key: str) -> models.PositiveIntegerField:
    return models.PositiveIntegerField(f"{label} (min)", default=STANDARD[key], validators=MINUTES)


# JSON fields' defaults: a fresh copy of the standard template's list on every call (named
# functions, so that migrations can refer to them).
def default_sla_credit_tiers() -> list[dict[str, str]]:
    return copy.deepcopy(STANDARD["sla_credit_tiers"])


def default_downtime_severities() -> list[str]:
    return list(STANDARD["downtime_severities"])


def default_whole_allocation_severities() -> list[str]:
    return list(STANDARD["whole_allocation_severities"])


def _text(label: str, key: str, help_text: str = "") -> models.TextField:
    return models.TextField(
        label, default=STANDARD[key], blank=True, help_text=help_text, max_length=TEXT_LIMIT
    )


class TermsFields(models.Model):
    """The agreed failed-run handoff. Defaults are the 24 × 7 training template."""

    buyer_owner_name = models.CharField("Buyer's incident owner", max_length=120, blank=True)
    buyer_owner_contact = models.CharField(
        "Buyer's contact", max_length=200, blank=True, help_text="E-mail, phone or on-call alias."
    )
    provider_owner_name = models.CharField(
        "Provider's incident owner",
        max_length=120,
        blank=True,
        help_text="Leave empty for the provider to name when it acknowledges.",
    )
    provider_owner_contact = models.CharField("Provider's contact", max_length=200, blank=True)
    buyer_evidence = _text("Evidence the buyer collects", "buyer_evidence")
    provider_evidence = _text("Evidence the provider collects", "provider_evidence")
    records_location = _text("Where incident records are placed", "records_location")

    s1_response_minutes = _minutes("S1 first response", "s1_response_minutes")
    s1_restore_minutes = _minutes("S1 restore", "s1_restore_minutes")
    s1_escalation = _text("S1 escalation", "s1_escalation")
    s2_response_minutes = _minutes("S2 first response", "s2_response_minutes")
    s2_restore_minutes = _minutes("S2 restore", "s2_restore_minutes")
    s2_escalation = _text("S2 escalation", "s2_escalation")
    s3_response_minutes = _minutes("S3 first response", "s3_response_minutes")
    s3_restore_minutes = _minutes("S3 restore", "s3_restore_minutes")
    s3_escalation = _text("S3 escalation", "s3_escalation")

    degraded_step_time_pct = models.DecimalField(
        "Degraded: median step time above baseline (%)",
        max_digits=5,
        decimal_places=1,
        default=STANDARD["degraded_step_time_pct"],
        validators=PCT,
    )
    degraded_window_minutes = models.PositiveIntegerField(
        "Degraded: sustained over (min)",
        default=STANDARD["degraded_window_minutes"],
        validators=MINUTES,
        help_text="Measured against the job's own baseline step time.",
    )

    recovery_diagnostics_all_gpus = models.BooleanField(
        "Diagnostics pass on every GPU", default=STANDARD["recovery_diagnostics_all_gpus"]
    )
    recovery_nccl_margin_pct = models.DecimalField(
        "NCCL within (%) of the hand-over baseline",
        max_digits=5,
        decimal_places=1,
        default=STANDARD["recovery_nccl_margin_pct"],
        validators=PCT,
        help_text="Same nccl-tests command as at hand-over.",
    )
    recovery_smoke_margin_pct = models.DecimalField(
        "Smoke run within (%) of pre-incident step time",
        max_digits=5,
        decimal_places=1,
        default=STANDARD["recovery_smoke_margin_pct"],
        validators=PCT,
    )
    recovery_loss_continuity = models.BooleanField(
        "Loss continues from the last checkpoint", default=STANDARD["recovery_loss_continuity"]
    )
    recovery_no_recurrence_hours = models.PositiveIntegerField(
        "No recurrence for (h)",
        default=STANDARD["recovery_no_recurrence_hours"],
        validators=[MinValueValidator(1)],
    )
    workaround_approval = _text("Workaround approval rule", "workaround_approval")

    excl_customer_caused = _text("Customer-caused failures", "excl_customer_caused")
    excl_buyer_software = _text("Software the buyer installs", "excl_buyer_software")
    maintenance_notice_hours = models.PositiveIntegerField(
        "Planned-maintenance notice (h)", default=STANDARD["maintenance_notice_hours"]
    )
    coverage_hours = models.CharField(
        "Support coverage hours", max_length=80, default=STANDARD["coverage_hours"]
    )
    coverage_timezone = models.CharField(
        "Coverage time zone",
        max_length=64,
        default=STANDARD["coverage_timezone"],
        help_text="An IANA name such as UTC or Europe/Berlin.",
    )
    partial_capacity_billing = _text("Partial-capacity billing", "partial_capacity_billing")
    spares = _text("Spares", "spares")
    own_hardware = _text("Buyer's own hardware", "own_hardware")

    # Availability and credits: data, so that statements compute them (docs/availability.md).
    sla_credit_tiers = models.JSONField(
        "SLA credit tiers",
        default=default_sla_credit_tiers,
        blank=True,
        help_text=(
            "Monthly availability below a tier's % earns its credit, as % of the month's fees."
        ),
    )
    sla_credit_cap_pct = models.DecimalField(
        "Credit cap (% of the month's fees)",
        max_digits=5,
        decimal_places=1,
        null=True,
        blank=True,
        validators=PCT,
        help_text="Leave empty for no cap below 100 %.",
    )
    downtime_severities = models.JSONField(
        "Severities that count as downtime",
        default=default_downtime_severities,
        blank=True,
    )
    whole_allocation_severities = models.JSONField(
        "Severities that take the whole allocation down",
        default=default_whole_allocation_severities,
        blank=True,
        help_text="Downtime of these counts every node of the allocation, whichever nodes the "
        "incident names (S1: the job is down across the cluster); other downtime counts the "
        "nodes named.",
    )
    degraded_downtime_pct = models.DecimalField(
        "Degraded (S2) counts as downtime at (% of its duration)",
        max_digits=5,
        decimal_places=1,
        default=STANDARD["degraded_downtime_pct"],
        validators=PCT,
        help_text="An S2 of 4 h at 50 % counts 2 h of downtime on its nodes. 0: an S2 is not "
        "downtime (the job runs on) but still counts as lost time.",
    )
    clock_breach_credit_pct = models.DecimalField(
        "Credit per clock breach (% of the month's fees)",
        max_digits=5,
        decimal_places=1,
        default=STANDARD["clock_breach_credit_pct"],
        validators=PCT,
    )
    outage_not_billed = models.BooleanField(
        "Nodes out of service are not billed", default=STANDARD["outage_not_billed"]
    )

    class Meta:
        abstract = True

    @classmethod
    def term_field_names(cls) -> list[str]:
        return [f.name for f in TermsFields._meta.get_fields() if f.concrete]

    def snapshot(self) -> dict[str, Any]:
        """JSON-ready values of every term (decimals as strings), for revisions and annexes."""
        out: dict[str, Any] = {}
        for field in TermsFields._meta.get_fields():
            if not field.concrete:
                continue
            value = getattr(self, field.name)
            if isinstance(value, Decimal) and isinstance(field, models.DecimalField):
                value = f"{value:.{field.decimal_places}f}"
            out[field.name] = value
        return out


class HandoffTerms(TermsFields):
    """The request's terms (`request` set), or a lot's own (`lot` set): never both. A lot
    without its own shares the request's."""

    request = models.OneToOneField(
        CapacityRequest,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="handoff_terms",
    )
    lot = models.OneToOneField(
        Lot, on_delete=models.CASCADE, null=True, blank=True, related_name="handoff_terms"
    )
    template = models.CharField(max_length=40, default=DEFAULT_TERMS_TEMPLATE)
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        verbose_name = "handoff terms"
        verbose_name_plural = "handoff terms"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(request__isnull=False, lot__isnull=True)
                | models.Q(request__isnull=True, lot__isnull=False),
                name="terms_of_request_or_lot",
            )
        ]

    def __str__(self) -> str:
        where = f"lot {self.lot.number} of " if self.lot is not None else ""
        return f"Handoff terms v{self.version} — {where}{self.capacity_request.title}"

    @property
    def capacity_request(self) -> CapacityRequest:
        """The request the terms belong to, directly or through their lot."""
        if self.lot is not None:
            return self.lot.request
        assert self.request is not None
        return self.request


class FrozenTermsRevisionError(Exception):
    """A terms revision is what providers acknowledged; it never changes."""


class HandoffTermsRevisionQuerySet(models.QuerySet["HandoffTermsRevision"]):
    def update(self, **kwargs: Any) -> int:
        raise FrozenTermsRevisionError("Terms revisions are immutable.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise FrozenTermsRevisionError("Terms revisions are immutable and cannot be deleted.")


class HandoffTermsRevision(models.Model):
    terms = models.ForeignKey(HandoffTerms, on_delete=models.PROTECT, related_name="revisions")
    number = models.PositiveIntegerField()
    snapshot = models.JSONField()
    sha256 = models.CharField(max_length=64)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = HandoffTermsRevisionQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["terms", "number"], name="unique_terms_revision")
        ]
        ordering = ["terms", "-number"]

    def __str__(self) -> str:
        return f"Terms revision {self.number}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise FrozenTermsRevisionError(f"Terms revision {self.number} is frozen.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise FrozenTermsRevisionError(f"Terms revision {self.number} cannot be deleted.")
