"""Uploaded usage and invoice files, the column mapping each provider's exports use, and the
differences a reconciliation found."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from acceptance.models import Reservation
from core.uploads import StoredUpload
from engine.billing import GPU_MINUTES, HOURS, RULES, UNITS
from orgs.models import Organization


class UsageUnit(models.TextChoices):
    HOURS = HOURS, UNITS[HOURS]
    GPU_MINUTES = GPU_MINUTES, UNITS[GPU_MINUTES]


class UsageMapping(models.Model):
    """How one provider's usage exports name our fields: set once, reused by later uploads."""

    provider = models.OneToOneField(
        Organization, on_delete=models.CASCADE, related_name="usage_mapping"
    )
    columns = models.JSONField(default=dict)  # our field -> the file's header
    unit = models.CharField(max_length=12, choices=UsageUnit.choices, default=UsageUnit.HOURS)
    date_format = models.CharField(max_length=40, blank=True)  # strptime; empty: ISO 8601
    # A bill read by its profile (engine.billing.profiles): the profile's name ("" for our own
    # simple headers, read with `columns`/`unit`/`date_format` above), what the user said about
    # the file's dialect (engine.billing.Overrides as a dict) and the GPUs of instance types
    # the catalogue does not know. With a profile, `columns` are read_bill's fields.
    profile = models.CharField(max_length=20, blank=True)
    overrides = models.JSONField(default=dict, blank=True)
    answers = models.JSONField(default=dict, blank=True)  # instance type -> GPUs
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Usage mapping of {self.provider}"

    def as_json(self) -> dict[str, object]:
        if self.profile:
            return {
                "profile": self.profile,
                "columns": self.columns,
                "overrides": self.overrides,
                "answers": self.answers,
            }
        return {"columns": self.columns, "unit": self.unit, "date_format": self.date_format}


class UsageState(models.TextChoices):
    MAPPING = "mapping", "Waiting for the column mapping"
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Reconciling"
    DONE = "done", "Reconciled"
    ERROR = "error", "Cannot be read as mapped"


class MappingScope(models.TextChoices):
    PROVIDER = "provider", "The provider's saved mapping"
    FILE = "file", "Set for this file only"


class UsageUpload(StoredUpload):
    """One usage or invoice file as sent, and the outcome of its latest reconciliation."""

    FALLBACK_NAME = "usage.csv"

    reservation = models.ForeignKey(
        Reservation, on_delete=models.CASCADE, related_name="usage_uploads"
    )
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)
    state = models.CharField(max_length=10, choices=UsageState.choices, default=UsageState.QUEUED)
    headers = models.JSONField(default=list)
    # The mapping this file is (to be) read with: our simple headers {columns, unit, date_format},
    # or a bill read by its profile {profile, columns, overrides, answers, node_map}, node_map
    # being the confirmed billed id -> contract node.
    mapping = models.JSONField(default=dict)
    # Whose mapping that is: the provider's saved one, or one a party set for this file alone
    # (a buyer's choice never changes the provider's bills to anyone else).
    mapping_scope = models.CharField(
        max_length=10, choices=MappingScope.choices, default=MappingScope.PROVIDER
    )
    mapping_set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    # The mapping the latest reconciliation ran with, exactly (a later change does not alter it).
    reconciled_mapping = models.JSONField(default=dict)
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    error_line = models.PositiveIntegerField(null=True, blank=True)
    error_column = models.CharField(max_length=255, blank=True)
    lines = models.PositiveIntegerField(default=0)
    # What reading the whole file found (a bill read by its profile), stored once by the worker
    # so the pages never read the file again: detected dialect, profile, proposed columns, the
    # first lines as read, bad cells, questions, billed node ids and the proposed node matching.
    inspection = models.JSONField(default=dict, blank=True)
    inspected_at = models.DateTimeField(null=True, blank=True)
    # What the latest reconciliation could not check and says so: outages on nodes no billed id
    # matches, lines of billed ids that match no contract node.
    warnings = models.JSONField(default=list, blank=True)
    # Dollar amounts as decimal strings: billed, allowed, credits, net, and per line type.
    totals = models.JSONField(default=dict)
    by_rule = models.JSONField(default=dict)  # rule -> how many lines break it
    listed_all = models.BooleanField(default=True)  # False: more differences than were kept
    credits_usd = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    reconciled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["reservation", "-uploaded_at", "-pk"]

    def __str__(self) -> str:
        return self.original_name

    def upload_dir(self) -> str:
        return f"billing/{self.reservation_id}"

    @property
    def difference_count(self) -> int:
        return sum(int(n) for n in self.by_rule.values())


class UsageDifference(models.Model):
    upload = models.ForeignKey(UsageUpload, on_delete=models.CASCADE, related_name="differences")
    line = models.PositiveIntegerField()
    rule = models.CharField(max_length=20, choices=list(RULES.items()))
    message = models.TextField()
    billed_usd = models.DecimalField(max_digits=16, decimal_places=2)
    allowed_usd = models.DecimalField(max_digits=16, decimal_places=2)

    class Meta:
        ordering = ["upload", "line", "pk"]
        indexes = [models.Index(fields=["upload", "rule", "line"], name="usage_diff_rule_line")]

    def __str__(self) -> str:
        return f"line {self.line}: {self.rule}"
