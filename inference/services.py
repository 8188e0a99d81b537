"""Served-responses writes: store the bytes first, read them in a worker against the awarded
offer's promise, say what went wrong on the file itself, and retry on request."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, transaction
from django.utils import timezone

from acceptance.audit import record_on_reservation
from acceptance.models import Reservation
from core.errors import Conflict
from core.queueing import send_task
from core.uploads import atomic_keeping_no_orphans, check_upload, sha256_of
from engine.inference import ServedResponsesError, parse_served, served_outcome
from inference.lifecycle import served_move, uploader_party
from inference.models import ServedResponsesFile, ServedState
from inference.selectors import gpus_of, promise_of

LABEL_MAX = 120


def _facts(row: ServedResponsesFile) -> dict[str, Any]:
    return {"file": row.original_name, "label": row.label, "sha256": row.sha256}


def _queue(row: ServedResponsesFile) -> None:
    from inference.tasks import read_served_file

    row_id = row.pk
    transaction.on_commit(
        lambda: send_task(read_served_file, row_id, what=f"Served-responses file #{row_id}")
    )


def served_upload(
    *, reservation: Reservation, user: User, upload: UploadedFile, label: str = ""
) -> tuple[ServedResponsesFile, bool]:
    """Store the file and queue its reading; the same bytes again return the stored file and
    True (a duplicate), whichever party sent them first."""
    with atomic_keeping_no_orphans():  # a refused save leaves no bytes behind
        return _store(reservation=reservation, user=user, upload=upload, label=label)


def _store(
    *, reservation: Reservation, user: User, upload: UploadedFile, label: str
) -> tuple[ServedResponsesFile, bool]:
    served_move(reservation, "served_upload", user=user)
    label = (label or "").strip()
    if len(label) > LABEL_MAX:
        raise ValidationError(
            {"label": [f"Keep the label to {LABEL_MAX} characters; it has {len(label)}."]}
        )
    check_upload(upload, limit=settings.EVIDENCE_MAX_BYTES, field="file")
    sha = sha256_of(upload)
    existing = ServedResponsesFile.objects.filter(reservation=reservation, sha256=sha).first()
    if existing is not None:
        return existing, True
    row = ServedResponsesFile(
        reservation=reservation,
        party=uploader_party(reservation, user=user),
        label=label,
        uploaded_by=user,
        queued_at=timezone.now(),
    )
    row.store(upload, sha256=sha)  # the bytes are kept before anything reads them
    try:
        with transaction.atomic():
            row.save()
    except IntegrityError:  # the same file arrived concurrently
        return ServedResponsesFile.objects.get(reservation=reservation, sha256=sha), True
    _queue(row)
    record_on_reservation(
        reservation=reservation, action="served.upload", user=user, after=_facts(row)
    )
    return row, False


def served_read(*, file_id: int) -> ServedResponsesFile:
    """Read one stored file against the awarded revision. Running it twice gives the same."""
    with transaction.atomic():
        row = ServedResponsesFile.objects.select_for_update().get(pk=file_id)
        row.state, row.queued_at = ServedState.PARSING, None
        row.attempts += 1
        row.save(update_fields=["state", "queued_at", "attempts", "state_changed_at"])
    revision = (
        Reservation.objects.select_related("bid_revision").get(pk=row.reservation_id).bid_revision
    )
    try:
        served = parse_served(row.read_bytes())
    except ServedResponsesError as exc:
        row.state, row.kind = ServedState.UNREADABLE, exc.kind or ""
        row.error, row.error_line, row.outcome = exc.message[:2000], exc.line, None
    else:
        outcome = served_outcome(
            served=served,
            promise=promise_of(revision),
            price_per_gpu_hour=revision.price_per_gpu_hour,
            gpus=gpus_of(revision),
        )
        row.state, row.kind, row.outcome = ServedState.PARSED, served.kind, outcome.as_json()
        row.error, row.error_line = "", None
    row.save(update_fields=["state", "kind", "error", "error_line", "outcome", "state_changed_at"])
    return row


def served_mark_error(*, file_id: int, error: BaseException) -> None:
    """A crash while reading: say so on the file, never leave it "reading"."""
    ServedResponsesFile.objects.filter(pk=file_id).update(
        state=ServedState.ERROR,
        error=f"Processing failed ({type(error).__name__}: {str(error)[:300]}). Retry it.",
        error_line=None,
        queued_at=None,
        state_changed_at=timezone.now(),
    )


@transaction.atomic
def served_retry(*, row: ServedResponsesFile, user: User) -> ServedResponsesFile:
    served_move(row.reservation, "served_retry", user=user)
    row = ServedResponsesFile.objects.select_for_update().get(pk=row.pk)
    if row.in_progress:
        raise Conflict(f"{row.original_name} is already queued for reading.")
    row.state, row.queued_at = ServedState.QUEUED, timezone.now()
    row.error, row.error_line = "", None
    row.save(update_fields=["state", "queued_at", "error", "error_line", "state_changed_at"])
    _queue(row)
    record_on_reservation(
        reservation=row.reservation, action="served.retry", user=user, after=_facts(row)
    )
    return row
