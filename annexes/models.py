"""Issued annex versions (immutable) and the jobs that render them."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from acceptance.models import Reservation
from bids.models import CapacityRequest


class AnnexKind(models.TextChoices):
    CONTRACT = "contract", "Contract annex"
    COMPARISON = "comparison", "Bid comparison summary (buyer only)"
    STATEMENT = "statement", "Monthly statement"
    OUTCOME = "outcome", "Outcome report"


class FrozenAnnexError(Exception):
    """An issued annex is what the parties were given; it never changes."""


class AnnexQuerySet(models.QuerySet["Annex"]):
    def update(self, **kwargs: Any) -> int:
        raise FrozenAnnexError("Issued annexes are immutable; generate a new version instead.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise FrozenAnnexError("Issued annexes are immutable and cannot be deleted.")


def annex_path(instance: Annex, filename: str) -> str:
    return f"annexes/{instance.request_id}/{filename}"


class Annex(models.Model):
    request = models.ForeignKey(CapacityRequest, on_delete=models.PROTECT, related_name="annexes")
    # A split award's contract annexes and statements are per reservation (lot and provider);
    # empty: the request's one (a single award, or the buyer's comparison summary).
    reservation = models.ForeignKey(
        Reservation, on_delete=models.PROTECT, null=True, blank=True, related_name="annexes"
    )
    kind = models.CharField(max_length=12, choices=AnnexKind.choices)
    # A monthly statement's month ("2027-01"); empty for the annexes issued once per request.
    period = models.CharField(max_length=7, blank=True, default="")
    version = models.PositiveIntegerField()
    snapshot = models.JSONField()
    snapshot_sha256 = models.CharField(max_length=64)
    pdf = models.FileField(upload_to=annex_path)
    pdf_sha256 = models.CharField(max_length=64)
    pdf_bytes = models.PositiveIntegerField()
    pages = models.PositiveIntegerField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = AnnexQuerySet.as_manager()

    class Meta:
        db_table = "contracts_annex"  # the table and its rows stay put (core/model_moves.py)
        constraints = [
            models.UniqueConstraint(
                fields=["request", "kind", "period", "version"],
                condition=models.Q(reservation__isnull=True),
                name="one_annex_per_version",
            ),
            models.UniqueConstraint(
                fields=["reservation", "kind", "period", "version"],
                condition=models.Q(reservation__isnull=False),
                name="one_reservation_annex_per_version",
            ),
        ]
        ordering = ["request", "kind", "-period", "-version"]
        verbose_name_plural = "annexes"

    def __str__(self) -> str:
        period = f" {self.period}" if self.period else ""
        return f"{self.get_kind_display()}{period} v{self.version} — {self.request}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise FrozenAnnexError(f"Annex v{self.version} is issued and cannot be changed.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise FrozenAnnexError(f"Annex v{self.version} is issued and cannot be deleted.")

    @property
    def filename(self) -> str:
        scope = f"request{self.request_id}"
        if self.reservation_id is not None:
            scope += f"-reservation{self.reservation_id}"
        if self.kind == AnnexKind.STATEMENT:
            return f"statement-{scope}-{self.period}-v{self.version}.pdf"
        if self.kind == AnnexKind.OUTCOME:
            return f"outcome-{scope}-{self.period or 'term'}-v{self.version}.pdf"
        prefix = "annex" if self.kind == AnnexKind.CONTRACT else "comparison-summary"
        return f"{prefix}-{scope}-v{self.version}.pdf"


class AnnexJobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RENDERING = "rendering", "Rendering"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class AnnexJob(models.Model):
    """One press of "Generate": the task renders it once, however often it is delivered."""

    request = models.ForeignKey(
        CapacityRequest, on_delete=models.CASCADE, related_name="annex_jobs"
    )
    reservation = models.ForeignKey(
        Reservation, on_delete=models.CASCADE, null=True, blank=True, related_name="annex_jobs"
    )
    kind = models.CharField(max_length=12, choices=AnnexKind.choices)
    period = models.CharField(max_length=7, blank=True, default="")
    status = models.CharField(
        max_length=10, choices=AnnexJobStatus.choices, default=AnnexJobStatus.QUEUED
    )
    error = models.TextField(blank=True)
    annex = models.ForeignKey(
        Annex, on_delete=models.PROTECT, null=True, blank=True, related_name="jobs"
    )
    reused = models.BooleanField(
        default=False, help_text="The sources had not changed, so no new version was issued."
    )
    attempts = models.PositiveIntegerField(default=0)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    requested_at = models.DateTimeField(auto_now_add=True)
    # When it was last sent to the queue (a retry sends it again): the reaper's "never picked
    # up" clock starts here, not at the first request.
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "contracts_annexjob"  # the table and its rows stay put (core/model_moves.py)
        ordering = ["-requested_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} job {self.pk} ({self.status})"

    @property
    def in_progress(self) -> bool:
        return self.status in (AnnexJobStatus.QUEUED, AnnexJobStatus.RENDERING)


class SigningParty(models.TextChoices):
    BUYER = "buyer", "Buyer"
    PROVIDER = "provider", "Provider"


def signed_path(instance: AnnexSignature, filename: str) -> str:
    return f"annexes/{instance.annex.request_id}/signed/{filename}"


class AnnexSignature(models.Model):
    """One party's PAdES signature on an issued version. `pdf` is the document as it stood right
    after this signature (the previous signed copy, or the issued PDF, plus one incremental
    update), so the newest signature's file carries every signature."""

    annex = models.ForeignKey(Annex, on_delete=models.PROTECT, related_name="signatures")
    party = models.CharField(max_length=10, choices=SigningParty.choices)
    organization = models.ForeignKey(
        "orgs.Organization", on_delete=models.PROTECT, related_name="+"
    )
    identity = models.ForeignKey(
        "signing.SigningIdentity", on_delete=models.PROTECT, related_name="annex_signatures"
    )
    signer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    signer_name = models.CharField(max_length=200)
    signer_role = models.CharField(max_length=10)
    field_name = models.CharField(max_length=60)
    pdf = models.FileField(upload_to=signed_path, max_length=200)
    pdf_sha256 = models.CharField(max_length=64)  # the signed document, as stored
    pdf_bytes = models.PositiveIntegerField()
    signed_over_sha256 = models.CharField(max_length=64)  # the bytes this signature extended
    timestamped = models.BooleanField(default=False)
    signed_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["annex", "party"], name="one_signature_per_party")
        ]
        ordering = ["annex", "signed_at", "pk"]

    def __str__(self) -> str:
        return f"{self.get_party_display()} signature on {self.annex}"

    @property
    def filename(self) -> str:
        return self.annex.filename.removesuffix(".pdf") + "-signed.pdf"
