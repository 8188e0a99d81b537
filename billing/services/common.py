"""What the billing services share: the limits, queueing after commit, the audit record."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from acceptance.audit import record_on_reservation
from billing import bills
from billing.models import (
    UsageState,
    UsageUpload,
)
from core.errors import Conflict, ServiceError
from core.queueing import send_task
from engine.billing import (
    UsageError,
)

# Differences kept per upload for the pages and exports; every one is still counted per rule.
MAX_LISTED = 50_000


class UsageRefused(ServiceError):
    """A stored file that cannot be read as it stands: the 400 says why (`summary`) and names
    every cell in error (`cells`); the row and its bytes are kept, committed, with the error."""

    def __init__(self, summary: str, *, field: str, errors: list[str], upload: UsageUpload):
        super().__init__({field: errors})
        self.summary = summary
        self.upload = upload


class UsageRetryRefused(UsageRefused, Conflict):
    """Running the same file with the same reading again would meet the same cells: refused
    by the file's state (409), which a new mapping or a corrected file lifts."""


def refuse_unreadable(upload: UsageUpload) -> None:
    """The file could not be read at all at upload (not a workbook, a zip bomb, a DTD, a cell
    no reader can hold in the header rows): refused, with the reason, after it was stored."""
    reason = upload.error or "The file cannot be read."
    raise UsageRefused(
        f"{upload.original_name} is stored (upload {upload.pk}) but cannot be read: {reason}",
        field="file",
        errors=[reason],
        upload=upload,
    )


def refuse_bad_cells(
    upload: UsageUpload, *, doing: str, refusal: type[UsageRefused] = UsageRefused
) -> None:
    """What reading the file found cells it cannot read: `doing` (confirming the mapping,
    reconciling) is refused with every such cell listed, never run on a part of the file."""
    cells, more = bills.bad_cells(upload.inspection or {})
    if not cells:
        return
    count = len(cells) + more
    rest = [f"... and {more} more."] if more else []
    raise refusal(
        f"Cannot {doing}: {count} cell(s) of {upload.original_name} cannot be read (each "
        "is listed, with its place). Fix them and upload the file again, or change the reading "
        "settings that misread them (columns, decimal mark, date order).",
        field="cells",
        errors=cells + rest,
        upload=upload,
    )


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


def _queue_inspection(upload: UsageUpload) -> None:
    """Read the whole file once in the worker (a year of lines is too long for a request);
    the row waits for its mapping meanwhile."""
    from billing.tasks import inspect_usage  # the task module imports this one

    upload_id = upload.pk
    UsageUpload.objects.filter(pk=upload_id).update(inspection={}, inspected_at=None)
    transaction.on_commit(
        lambda: send_task(inspect_usage, upload_id, what=f"Usage file {upload.original_name}")
    )


def _record(upload: UsageUpload, action: str, user: User, **values: Any) -> None:
    record_on_reservation(
        reservation=upload.reservation,
        action=action,
        user=user,
        obj_key=f"usage:{upload.pk}",
        **values,
    )


def _fail(row: UsageUpload, exc: UsageError) -> None:
    row.state, row.error = UsageState.ERROR, str(exc)
    row.error_line, row.error_column = exc.line, exc.column
    row.save(update_fields=["state", "error", "error_line", "error_column"])
