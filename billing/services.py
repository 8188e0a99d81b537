"""Writes for billing: store an uploaded usage file, set its column mapping, reconcile, retry.

The bytes are stored before anything reads them; a file that cannot be read keeps its row, its
error (line and column) and its bytes, so a fixed mapping can run it again. A reconciliation
always ends: done, or failed with a reason and a Retry (a lost worker, the time limit, the
reaper in billing.jobs); a broker that is away leaves the row queued and the caller a 503."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from acceptance.audit import record_on_reservation
from acceptance.models import Reservation
from billing import selectors
from billing.lifecycle import usage_move, usage_party
from billing.models import (
    MappingScope,
    UsageDifference,
    UsageMapping,
    UsageState,
    UsageUpload,
)
from core.errors import ServiceError
from core.queueing import send_task
from core.uploads import check_upload
from delivery.selectors import delivery_for
from engine.billing import (
    FIELDS,
    UNITS,
    Mapping,
    UsageError,
    dollars,
    gpu_hours,
    guess_mapping,
    open_table,
    read_lines,
    reconcile,
)
from engine.billing.lines import to_micro
from engine.billing.mapping import REQUIRED
from engine.formatting import rounded

# Differences kept per upload for the pages and exports; every one is still counted per rule.
MAX_LISTED = 50_000


LOST_WORKER = (
    "The reconciliation stopped without finishing: its worker was lost (out of memory, a "
    "restart) while it ran. It was not run again by itself; Retry it."
)


def _queue(upload: UsageUpload) -> None:
    """Queue after commit (the worker must see the row); a broker that is away raises
    QueueUnavailable out of the caller's transaction, with the row committed and queued."""
    from billing.tasks import reconcile_usage  # the task module imports this one

    upload.queued_at, upload_id = timezone.now(), upload.pk
    UsageUpload.objects.filter(pk=upload_id).update(queued_at=upload.queued_at)
    transaction.on_commit(
        lambda: send_task(reconcile_usage, upload_id, what=f"Usage file {upload.original_name}")
    )


def _record(upload: UsageUpload, action: str, user: User, **values: Any) -> None:
    record_on_reservation(
        reservation=upload.reservation,
        action=action,
        user=user,
        obj_key=f"usage:{upload.pk}",
        **values,
    )


@transaction.atomic
def usage_upload(*, reservation: Reservation, user: User, upload: UploadedFile) -> UsageUpload:
    """Store the file, read its header, and reconcile it at once when the provider's saved
    mapping fits; otherwise it waits for the mapping (guessed from the headers)."""
    usage_move(reservation, "usage_upload", user=user)
    check_upload(upload, limit=settings.USAGE_MAX_BYTES, field="file")
    row = UsageUpload(reservation=reservation, uploaded_by=user)
    row.store(upload)
    row.state = UsageState.MAPPING
    row.save()
    try:
        row.headers = open_table(selectors.usage_head(upload=row), name=row.original_name).headers
    except UsageError as exc:
        _fail(row, exc)
    else:
        saved = selectors.provider_mapping(provider_id=reservation.bid.provider_id)
        mapping = Mapping.from_json(saved.as_json()) if saved else None
        if mapping is not None and not mapping.missing(row.headers):
            row.mapping, row.state = mapping.to_json(), UsageState.QUEUED
            _queue(row)
        else:
            row.mapping = (mapping if mapping else guess_mapping(row.headers)).to_json()
        row.save(update_fields=["headers", "mapping", "state"])
    _record(
        row,
        "usage.uploaded",
        user,
        after={
            "file": row.original_name,
            "sha256": row.sha256,
            "size": row.size,
            "state": row.state,
        },
    )
    return row


def _fail(row: UsageUpload, exc: UsageError) -> None:
    row.state, row.error = UsageState.ERROR, str(exc)
    row.error_line, row.error_column = exc.line, exc.column
    row.save(update_fields=["state", "error", "error_line", "error_column"])


def clean_mapping(
    *, headers: list[str], columns: dict[str, str], unit: str, date_format: str
) -> Mapping:
    """The mapping as typed, refused field by field when it names no header of this file."""
    errors: dict[str, list[str]] = {}
    if unit not in UNITS:
        errors["unit"] = [f"Choose the quantity's unit: {', '.join(UNITS)}."]
    clean = {f: (columns.get(f) or "").strip() for f in FIELDS}
    for field, header in clean.items():
        if header and header not in headers:
            errors[field] = [f"'{header}' is not a header of this file."]
    mapping = Mapping(
        columns={f: h for f, h in clean.items() if h}, unit=unit, date_format=date_format.strip()
    )
    for field in REQUIRED:
        if not clean[field]:
            errors.setdefault(field, [f"Say which column holds the {FIELDS[field].lower()}."])
    if errors:
        raise ValidationError(errors)
    return mapping


@transaction.atomic
def usage_map(
    *, upload: UsageUpload, user: User, columns: dict[str, str], unit: str, date_format: str = ""
) -> UsageUpload:
    """Reconcile this file with the mapping typed. A provider member's mapping becomes the
    provider's saved one (later files reuse it); a buyer's applies to this file alone and never
    changes how the provider's other bills are read. Both are on the audit chain."""
    reservation = upload.reservation
    usage_move(reservation, "usage_map", user=user)
    mapping = clean_mapping(
        headers=upload.headers, columns=columns, unit=unit, date_format=date_format
    )
    before = dict(upload.mapping)
    scope = MappingScope.FILE
    if usage_party(reservation, user=user) == "provider":
        scope = MappingScope.PROVIDER
        saved = selectors.provider_mapping(provider_id=reservation.bid.provider_id)
        saved_before = saved.as_json() if saved else {}
        UsageMapping.objects.update_or_create(
            provider_id=reservation.bid.provider_id,
            defaults={
                "columns": mapping.columns,
                "unit": mapping.unit,
                "date_format": mapping.date_format,
                "updated_by": user,
            },
        )
        if saved_before != mapping.to_json():
            _record(
                upload,
                "usage.mapping_changed",
                user,
                before=saved_before,
                after=mapping.to_json() | {"scope": "provider"},
            )
    elif before != mapping.to_json() or upload.mapping_scope != scope:
        _record(
            upload,
            "usage.file_mapping_set",
            user,
            before=before,
            after=mapping.to_json() | {"scope": "file"},
        )
    upload.mapping, upload.state = mapping.to_json(), UsageState.QUEUED
    upload.mapping_scope, upload.mapping_set_by = scope, user
    upload.error, upload.error_line, upload.error_column = "", None, ""
    upload.save(
        update_fields=[
            "mapping",
            "mapping_scope",
            "mapping_set_by",
            "state",
            "error",
            "error_line",
            "error_column",
        ]
    )
    _queue(upload)
    return upload


@transaction.atomic
def usage_retry(*, upload: UsageUpload, user: User) -> UsageUpload:
    """Run a failed reconciliation again, or queue one that never reached a worker."""
    usage_move(upload.reservation, "usage_retry", user=user)
    row = UsageUpload.objects.select_for_update().get(pk=upload.pk)
    if row.state not in (UsageState.ERROR, UsageState.QUEUED):
        raise ServiceError(f"This file is {row.get_state_display().lower()}: nothing to retry.")
    if Mapping.from_json(row.mapping).missing(row.headers):
        raise ServiceError("Set the column mapping first: the file cannot be read without it.")
    row.state, row.error, row.error_line, row.error_column = UsageState.QUEUED, "", None, ""
    row.save(update_fields=["state", "error", "error_line", "error_column"])
    _record(row, "usage.retried", user, after={"file": row.original_name})
    _queue(row)
    return row


def credits_for_period(
    reservation: Reservation, first: int | None, last: int | None
) -> tuple[Decimal, list[str]]:
    """The SLA credits of the months a bill's lines cover, and those months ("2027-01")."""
    if first is None or last is None:
        return Decimal(0), []
    report = delivery_for(reservation=reservation).report
    if report is None:
        return Decimal(0), []
    lo, hi = datetime.fromtimestamp(first, UTC), datetime.fromtimestamp(last, UTC)
    months = [m for m in report.months if m.start < hi and m.end > lo]
    return sum((m.credit.value or Decimal(0) for m in months), Decimal(0)), [
        m.label for m in months
    ]


def usage_reconcile(*, upload_id: int) -> UsageUpload:
    """Read the stored file with its mapping and check every line. Safe to run twice: the
    previous outcome is replaced as a whole. The SLA credits due are those of the months the
    bill's GPU lines cover (the delivery report's figures)."""
    with transaction.atomic():
        row = UsageUpload.objects.select_for_update().get(pk=upload_id)
        if row.state in (UsageState.MAPPING, UsageState.DONE):
            return row  # waiting for a mapping, or a re-delivered message of a finished run
        if row.state == UsageState.RUNNING:
            # Re-delivered after its worker died mid-run: fail it rather than loop on a file
            # that may be what killed the worker.
            row.state, row.error = UsageState.ERROR, LOST_WORKER
            row.save(update_fields=["state", "error"])
            return row
        row.state, row.started_at, row.attempts = (
            UsageState.RUNNING,
            timezone.now(),
            F("attempts") + 1,
        )
        row.save(update_fields=["state", "started_at", "attempts"])
    row = UsageUpload.objects.select_related(
        "reservation__request", "reservation__bid", "reservation__bid_revision"
    ).get(pk=upload_id)
    try:
        contract = selectors.contract_for(reservation=row.reservation)
        table = open_table(row.read_bytes(), name=row.original_name)
        result = reconcile(
            read_lines(table, Mapping.from_json(row.mapping)), contract, max_listed=MAX_LISTED
        )
    except UsageError as exc:
        with transaction.atomic():
            row.differences.all().delete()
            _fail(row, exc)
        return row
    credits, months = credits_for_period(row.reservation, result.first_start, result.last_end)
    result.credits = max(to_micro(str(credits)), 0)
    with transaction.atomic():
        row.differences.all().delete()
        UsageDifference.objects.bulk_create(
            (
                UsageDifference(
                    upload=row,
                    line=d.line,
                    rule=d.rule,
                    message=d.message,
                    billed_usd=dollars(d.billed),
                    allowed_usd=dollars(d.allowed),
                )
                for d in result.differences
            ),
            batch_size=2000,
        )
        row.lines, row.by_rule, row.listed_all = result.lines, result.by_rule, result.listed_all
        row.credits_usd = dollars(result.credits)
        row.totals = {
            "billed": str(dollars(result.billed_total)),
            "allowed": str(dollars(result.allowed_total)),
            "credits": str(dollars(result.credits)),
            "credit_months": months,
            # Credits beyond what the bill allows leave nothing to pay, not a negative amount.
            "net": str(max(dollars(result.net), Decimal(0))),
            "over": str(dollars(result.billed_total - result.allowed_total)),
            "gpu_hours": f"{rounded(gpu_hours(result.gpu_hours)):f}",
            "billed_by_type": {k: str(dollars(v)) for k, v in result.billed.items()},
            "allowed_by_type": {k: str(dollars(v)) for k, v in result.allowed.items()},
        }
        row.state, row.error, row.error_line, row.error_column = UsageState.DONE, "", None, ""
        row.reconciled_at, row.reconciled_mapping = timezone.now(), dict(row.mapping)
        row.save()
    return row


def usage_mark_error(*, upload_id: int, error: BaseException) -> None:
    """A crash the parser did not foresee, or the time limit: the row says so (with Retry)
    rather than staying 'reconciling'."""
    if isinstance(error, SoftTimeLimitExceeded):
        limit = settings.CELERY_TASK_SOFT_TIME_LIMIT
        reason = f"The reconciliation ran past its time limit ({limit} s) and was stopped."
    else:
        reason = f"The reconciliation failed unexpectedly ({type(error).__name__})."
    UsageUpload.objects.filter(pk=upload_id).update(state=UsageState.ERROR, error=reason)
