"""Reading a bill once, in the worker, and keeping what was read (the inspection) on its row,
so that pages show it without reading the file again."""

from __future__ import annotations

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from billing import bills, selectors
from billing.models import (
    UsageState,
    UsageUpload,
)
from billing.services.common import _queue
from engine.billing import (
    Bill,
    UsageError,
    match_nodes,
)


def _inspect(
    row: UsageUpload, data: bytes, *, nodes: list[str], node_gpus: int | None
) -> Bill | None:
    """Read the whole bill with the row's settings and store what was found; None (and the
    reason stored) when the file cannot be read with them at all."""
    propose = not row.mapping.get("columns")
    try:
        headers = bills.headers_of(data, name=row.original_name, mapping=row.mapping)
        bill = bills.read(
            data,
            name=row.original_name,
            mapping=row.mapping,
            node_gpus=node_gpus,
            propose=propose,
        )
    except UsageError as exc:
        row.inspection = bills.failed_inspection(
            message=str(exc), line=exc.line, nodes=nodes, cell=exc.cell
        )
        row.inspected_at = timezone.now()
        return None
    billed = bills.billed_nodes(bill)
    match = match_nodes(billed=billed, nodes=nodes)
    row.headers = headers
    row.inspection = bills.inspection(bill, headers=headers, nodes=nodes, match=match)
    row.inspected_at = timezone.now()
    if propose:
        row.mapping = {**row.mapping, "columns": dict(bill.proposal.columns)}
    return bill


def usage_inspect(*, upload_id: int) -> UsageUpload:
    """Read a stored bill once and keep what was found on the row for the pages. A file read
    with the provider's saved settings, with nothing to ask and every billed id a contract
    node by name, is reconciled at once; anything else waits for the user to confirm."""
    row = UsageUpload.objects.select_related("reservation__request", "reservation__bid").get(
        pk=upload_id
    )
    if not bills.is_bill(row.mapping) or row.state != UsageState.MAPPING:
        return row
    reservation, original = row.reservation, dict(row.mapping)
    nodes = selectors.contract_nodes(reservation=reservation)
    bill = _inspect(
        row,
        row.read_bytes(),
        nodes=nodes,
        node_gpus=selectors.node_gpus(reservation=reservation),
    )
    fields = ["inspection", "inspected_at", "headers", "mapping"]
    with transaction.atomic():
        current = UsageUpload.objects.select_for_update().get(pk=upload_id)
        if current.state != UsageState.MAPPING or current.mapping != original:
            return current  # settings changed meanwhile: their own reading follows
        match = row.inspection.get("node_match") or {}
        automatic = (
            bill is not None
            and row.mapping.get("saved")
            and nodes
            and not bill.errors
            and not bill.questions
            and not match.get("unmatched_billed")
            and all(how in ("exact", "normalised") for how in match.get("how", {}).values())
        )
        if automatic:
            row.mapping = {**row.mapping, "node_map": dict(match.get("matched") or {})}
            row.state = UsageState.QUEUED
            fields.append("state")
        row.save(update_fields=fields)
        if automatic:
            _queue(row)
    return row


def usage_mark_inspection_error(*, upload_id: int, error: BaseException) -> None:
    """A reading that crashed or ran out of time: the mapping page says so instead of
    "reading…" for ever; saving the settings reads it again."""
    if isinstance(error, SoftTimeLimitExceeded):
        limit = settings.CELERY_TASK_SOFT_TIME_LIMIT
        reason = f"Reading the file ran past its time limit ({limit} s) and was stopped."
    else:
        reason = f"Reading the file failed unexpectedly ({type(error).__name__})."
    UsageUpload.objects.filter(pk=upload_id).update(
        inspection={"error": reason, "error_line": None, "contract_nodes": []},
        inspected_at=timezone.now(),
    )
