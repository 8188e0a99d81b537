"""Storing what was observed (the bytes first, then reading them in the worker), retrying a
file that could not be read, and naming the result the buyer pays for."""

from __future__ import annotations

from datetime import UTC
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone

from acceptance.audit import record_on_reservation
from acceptance.models import Reservation
from core.errors import Conflict
from core.queueing import send_task
from core.uploads import atomic_keeping_no_orphans, check_upload
from engine.observed import serialize
from engine.observed.errors import ObservedInputError
from engine.observed.kueue import read_kueue
from engine.observed.nodes import read_kube_nodes, read_sinfo
from engine.observed.results import read_results
from engine.observed.slurm_jobs import read_sacct
from engine.packed import PackedError, gunzipped
from incidents.selectors.recovery import contract_shape
from observed.lifecycle import observed_move, observed_party
from observed.models import ObservedKind, ObservedState, ObservedUpload, ResultDefinition


def observed_upload(
    *, reservation: Reservation, user: User, upload: UploadedFile, kind: str
) -> ObservedUpload:
    """Store the file as sent and queue its reading; the row is kept whatever the reading finds."""
    observed_move(reservation, "observed_upload", user=user)
    if kind not in ObservedKind.values:
        raise ValidationError({"kind": ["Choose what the file is."]})
    check_upload(upload, limit=settings.EVIDENCE_MAX_BYTES, field="file")
    with atomic_keeping_no_orphans():
        row = ObservedUpload(
            reservation=reservation, uploaded_by=user, kind=kind,
            party=observed_party(reservation, user=user),
        )  # fmt: skip
        row.store(upload)
        row.save()
        _record(row, "observed.upload", user, after={
            "file": row.original_name, "kind": kind, "sha256": row.sha256, "size": row.size,
        })  # fmt: skip
        _queue(row)
    return row


def observed_retry(*, upload: ObservedUpload, user: User) -> ObservedUpload:
    observed_move(upload.reservation, "observed_retry", user=user)
    if upload.state != ObservedState.ERROR:
        raise Conflict(f"{upload.original_name} is {upload.get_state_display().lower()}: only "
                       "a file that could not be read is read again.")  # fmt: skip
    with transaction.atomic():
        ObservedUpload.objects.filter(pk=upload.pk).update(
            state=ObservedState.QUEUED, error="", error_line=None, error_field=""
        )
        upload.refresh_from_db()
        _record(upload, "observed.retry", user, before={"error": "cannot be read"})
        _queue(upload)
    return upload


def observed_parse(*, upload_id: int) -> ObservedUpload:
    """Read one stored file (the worker's task); safe to run twice."""
    with transaction.atomic():
        row = ObservedUpload.objects.select_for_update().get(pk=upload_id)
        if row.state == ObservedState.DONE:
            return row
        row.state, row.started_at, row.attempts = (
            ObservedState.PARSING, timezone.now(), row.attempts + 1,
        )  # fmt: skip
        row.save(update_fields=["state", "started_at", "attempts"])
    try:
        # A gzipped dump (`sacct.txt.gz`) is read as the text inside.
        data = gunzipped(row.read_bytes())
        parsed = _parse(row, data.decode("utf-8", errors="replace"))
    except PackedError as exc:
        row.state, row.error = ObservedState.ERROR, f"{row.original_name} is {exc}."
        row.save(update_fields=["state", "error"])
        return row
    except ObservedInputError as exc:
        row.state, row.error = ObservedState.ERROR, str(exc)
        row.error_line, row.error_field = exc.line, (exc.field or "")[:120]
        row.save(update_fields=["state", "error", "error_line", "error_field"])
        return row
    row.parsed, row.parsed_at, row.state = parsed, timezone.now(), ObservedState.DONE
    row.save(update_fields=["parsed", "parsed_at", "state"])
    return row


def observed_mark_error(*, upload_id: int, error: BaseException) -> None:
    ObservedUpload.objects.filter(pk=upload_id).exclude(state=ObservedState.DONE).update(
        state=ObservedState.ERROR, error=f"Reading failed: {error}"[:2000]
    )


def _parse(row: ObservedUpload, text: str) -> dict[str, Any]:
    name = row.original_name
    if row.kind == ObservedKind.KUEUE:
        return serialize.scheduler_to_json(read_kueue(name, text))
    if row.kind == ObservedKind.SACCT:
        return serialize.scheduler_to_json(read_sacct(name, text, tz=UTC))
    if row.kind == ObservedKind.KUBE_NODES:
        return serialize.snapshot_to_json(read_kube_nodes(name, text))
    if row.kind == ObservedKind.SINFO:
        _nodes, per_node, _model = contract_shape(row.reservation)
        return serialize.snapshot_to_json(read_sinfo(name, text, gpus_per_node=per_node))
    return serialize.results_to_json(read_results(name, text))


def result_define(
    *, reservation: Reservation, user: User, unit: str, expected_per_gpu_hour: Decimal | None
) -> ResultDefinition:
    observed_move(reservation, "observed_result", user=user)
    with transaction.atomic():
        row, _created = ResultDefinition.objects.select_for_update().get_or_create(
            reservation=reservation, defaults={"unit": unit, "set_by": user}
        )
        before = {"unit": row.unit, "expected_per_gpu_hour": str(row.expected_per_gpu_hour)}
        row.unit, row.expected_per_gpu_hour, row.set_by = unit, expected_per_gpu_hour, user
        row.full_clean(exclude=["reservation"])
        row.save()
        after = {"unit": unit, "expected_per_gpu_hour": str(expected_per_gpu_hour)}
        record_on_reservation(
            reservation=reservation, action="observed.result", user=user,
            obj_key=f"reservation:{reservation.pk}", before=None if _created else before,
            after=after,
        )  # fmt: skip
    return row


def _queue(row: ObservedUpload) -> None:
    from observed.tasks import parse_observed  # the task module imports this one

    row.queued_at, upload_id = timezone.now(), row.pk
    ObservedUpload.objects.filter(pk=upload_id).update(queued_at=row.queued_at)
    transaction.on_commit(
        lambda: send_task(parse_observed, upload_id, what=f"Observed file {row.original_name}")
    )


def _record(row: ObservedUpload, action: str, user: User, **values: Any) -> None:
    record_on_reservation(
        reservation=row.reservation, action=action, user=user, obj_key=f"observed:{row.pk}",
        **values,
    )  # fmt: skip
