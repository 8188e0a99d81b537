"""Storing a usage file (the bytes first, then what it is) and retrying its reconciliation."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from acceptance.models import Reservation
from billing import bills, selectors
from billing.lifecycle import usage_move
from billing.models import (
    MappingScope,
    UsageState,
    UsageUpload,
)
from billing.services.common import (
    UsageRetryRefused,
    _fail,
    _queue,
    _queue_inspection,
    _record,
    refuse_bad_cells,
    refuse_unreadable,
)
from core.errors import Conflict
from core.uploads import check_upload
from engine.billing import (
    Mapping,
    UsageError,
    guess_mapping,
)
from engine.billing.preview import head_rows


def usage_upload(*, reservation: Reservation, user: User, upload: UploadedFile) -> UsageUpload:
    """Store the file, read its header, and reconcile it at once when the provider's saved
    mapping fits; otherwise it waits for the mapping (guessed from the headers). A file that
    cannot be read at all (a damaged or hostile workbook, no header row) is refused with
    UsageRefused once stored: the row keeps its bytes and its error, nothing is lost."""
    row = _store(reservation=reservation, user=user, upload=upload)
    if row.state == UsageState.ERROR:
        refuse_unreadable(row)
    return row


@transaction.atomic
def _store(*, reservation: Reservation, user: User, upload: UploadedFile) -> UsageUpload:
    usage_move(reservation, "usage_upload", user=user)
    check_upload(upload, limit=settings.USAGE_MAX_BYTES, field="file")
    row = UsageUpload(reservation=reservation, uploaded_by=user)
    row.store(upload)
    row.state = UsageState.MAPPING
    row.save()
    head = selectors.usage_head(upload=row)
    profile = _recognised(head, name=row.original_name, provider_id=reservation.bid.provider_id)
    if profile is not None:
        # A bill laid out as a cloud or neocloud writes it: read whole by the worker, then
        # confirmed on the mapping page (or at once with the provider's saved profile mapping).
        row.headers, row.mapping, row.mapping_scope = profile
        row.save(update_fields=["headers", "mapping", "mapping_scope"])
        _queue_inspection(row)
    else:
        try:
            row.headers, first = head_rows(head, name=row.original_name)
        except UsageError as exc:
            _fail(row, exc)
        else:
            saved = selectors.provider_mapping(provider_id=reservation.bid.provider_id)
            # A provider's saved profile settings are for its cloud bills, not this layout.
            mapping = Mapping.from_json(saved.as_json()) if saved and not saved.profile else None
            if mapping is not None and not mapping.missing(row.headers):
                row.mapping, row.state = mapping.to_json(), UsageState.QUEUED
                _queue(row)
            else:
                row.mapping = (mapping if mapping else guess_mapping(row.headers)).to_json()
            # The first rows, kept: the mapping page previews any mapping from them.
            row.inspection = {"head": [[line, cells] for line, cells in first]}
            row.save(update_fields=["headers", "mapping", "state", "inspection"])
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


def _simple(headers: list[str], *, provider_id: int) -> bool:
    """Whether the file has our own simple headers: the provider's saved simple mapping fits
    them, or the header guess names a column for every required field and every header. Such
    files keep their column mapping (with its unit and date format) even where a profile
    would also recognise them."""
    saved = selectors.provider_mapping(provider_id=provider_id)
    if (
        saved is not None
        and not saved.profile
        and not Mapping.from_json(saved.as_json()).missing(headers)
    ):
        return True
    guess = guess_mapping(headers)
    named = [h for h in headers if h]
    return not guess.missing(headers) and set(guess.columns.values()) >= set(named)


def _recognised(
    head: bytes, *, name: str, provider_id: int
) -> tuple[list[str], dict[str, Any], str] | None:
    """Headers, stored settings and mapping scope of a file a profile recognises (with the
    provider's saved mapping for that profile when its columns are headers of this file);
    None for a file read with the simple column mapping."""
    try:
        headers = bills.headers_of(head, name=name)
    except UsageError:
        return None
    profile = bills.profile_of(headers)
    if not profile or _simple(headers, provider_id=provider_id):
        return None
    mapping: dict[str, Any] = {
        "profile": profile,
        "columns": {},
        "overrides": {},
        "answers": {},
        "node_map": {},
    }
    saved = selectors.provider_mapping(provider_id=provider_id)
    if (
        saved is not None
        and saved.profile == profile
        and set(saved.columns.values()) <= set(headers)
    ):
        # The saved settings fit: the worker may reconcile at once (see usage_inspect).
        mapping |= {"columns": dict(saved.columns), "overrides": dict(saved.overrides)}
        mapping |= {"answers": dict(saved.answers), "saved": True}
    return headers, mapping, MappingScope.PROVIDER


@transaction.atomic
def usage_retry(*, upload: UsageUpload, user: User) -> UsageUpload:
    """Run a failed reconciliation again, or queue one that never reached a worker; for a bill
    whose reading never reached a worker (the queue was away at upload), send the reading."""
    usage_move(upload.reservation, "usage_retry", user=user)
    row = UsageUpload.objects.select_for_update().get(pk=upload.pk)
    if row.state == UsageState.MAPPING and bills.is_bill(row.mapping) and not row.inspected_at:
        _record(row, "usage.retried", user, after={"file": row.original_name, "step": "reading"})
        _queue_inspection(row)
        return row
    if row.state not in (UsageState.ERROR, UsageState.QUEUED):
        raise Conflict(f"This file is {row.get_state_display().lower()}: nothing to retry.")
    if bills.is_bill(row.mapping):
        if not row.mapping.get("columns"):
            raise Conflict("Confirm the columns first: the file cannot be read without them.")
        refuse_bad_cells(row, doing="reconcile", refusal=UsageRetryRefused)
    elif row.state == UsageState.ERROR and row.error_line is not None:
        # The mapping that met this cell is unchanged: running it again meets it again.
        raise UsageRetryRefused(
            f"Cannot reconcile: {row.error}. Fix the cell and upload the file again, or change "
            "the mapping.",
            field="cells",
            errors=[row.error],
            upload=row,
        )
    elif Mapping.from_json(row.mapping).missing(row.headers):
        raise Conflict("Set the column mapping first: the file cannot be read without it.")
    row.state, row.error, row.error_line, row.error_column = UsageState.QUEUED, "", None, ""
    row.save(update_fields=["state", "error", "error_line", "error_column"])
    _record(row, "usage.retried", user, after={"file": row.original_name})
    _queue(row)
    return row
