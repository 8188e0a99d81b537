"""Writes for billing: store an uploaded usage file, set its column mapping, reconcile, retry.

The bytes are stored before anything reads them; a file that cannot be read keeps its row, its
error (line and column) and its bytes, so a fixed mapping can run it again. A reconciliation
always ends: done, or failed with a reason and a Retry (a lost worker, the time limit, the
reaper in billing.jobs); a broker that is away leaves the row queued and the caller a 503."""

from __future__ import annotations

from dataclasses import replace
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
from billing import bills, selectors
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
    PROFILES,
    UNITS,
    Bill,
    Contract,
    Mapping,
    Result,
    UsageError,
    UsageLine,
    dollars,
    gpu_hours,
    guess_mapping,
    match_nodes,
    open_table,
    read_lines,
    reconcile,
)
from engine.billing.lines import GPU, to_micro
from engine.billing.localized import DATE_ORDERS
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
            row.headers = open_table(head, name=row.original_name).headers
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
                "profile": "",
                "overrides": {},
                "answers": {},
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


def _node_map(mapping: dict[str, Any], billed: list[str], nodes: list[str]) -> dict[str, str]:
    """The confirmed billed id -> contract node; a billed id that is a contract node's own name
    needs no confirming."""
    same = {b: b for b in billed if b in nodes}
    confirmed = {str(k): str(v) for k, v in dict(mapping.get("node_map") or {}).items() if v}
    return same | confirmed


def _clean_bill_mapping(
    *,
    upload: UsageUpload,
    profile: str,
    columns: dict[str, str],
    overrides: dict[str, Any],
    answers: dict[str, Any],
    node_map: dict[str, str],
    nodes: list[str],
) -> tuple[dict[str, Any], bool]:
    """The settings as typed, refused field by field; and whether they change how the file is
    cut into rows (delimiter, header row, sheet), in which case it is read again before the
    columns are confirmed."""
    errors: dict[str, list[str]] = {}
    if profile not in PROFILES:
        errors["profile"] = [f"Choose a profile: {', '.join(PROFILES)}."]
    clean_over: dict[str, Any] = {}
    for name, value in overrides.items():
        text = "" if value is None else str(value)
        if name not in bills.OVERRIDE_NAMES:
            errors[name] = ["Not a setting of the file."]
        elif not text.strip() and text != "\t":
            continue
        elif name == "delimiter" and text not in bills.DELIMITER_CHOICES:
            errors[name] = [f"Choose the delimiter: {', '.join(bills.DELIMITER_CHOICES.values())}."]
        elif name == "decimal" and text not in bills.DECIMAL_CHOICES:
            errors[name] = ["The decimal mark is '.' or ','."]
        elif name == "date_order" and text not in DATE_ORDERS:
            errors[name] = [f"Choose the date order: {', '.join(DATE_ORDERS)}."]
        elif name == "header_row" and (not text.isdigit() or int(text) < 1):
            errors[name] = ["The header row is a row number, 1 or more."]
        else:
            clean_over[name] = int(text) if name == "header_row" else text
    before = dict(upload.mapping.get("overrides") or {}) if bills.is_bill(upload.mapping) else {}
    shape = ("delimiter", "header_row", "sheet")
    reread = any(clean_over.get(k) != before.get(k) for k in shape)
    clean_cols = {f: (h or "").strip() for f, h in columns.items() if (h or "").strip()}
    for field, header in clean_cols.items():
        if field not in bills.BILL_FIELDS:
            errors[field] = ["Not a field of a bill."]
        elif not reread and header not in upload.headers:
            errors[field] = [f"'{header}' is not a header of this file."]
    clean_answers: dict[str, int] = {}
    for kind, gpus in answers.items():
        if gpus is None or str(gpus).strip() == "":
            continue
        if not str(gpus).strip().isdigit() or int(str(gpus)) > 1024:
            errors[f"answer:{kind}"] = ["Answer with a whole number of GPUs (0 if none)."]
        else:
            clean_answers[str(kind)] = int(str(gpus))
    clean_nodes = {str(b).strip(): str(n).strip() for b, n in node_map.items() if str(n).strip()}
    for billed, node in clean_nodes.items():
        if node not in nodes:
            errors[f"node:{billed}"] = [f"'{node}' is not a node of this reservation."]
    taken = list(clean_nodes.values())
    for node in {n for n in taken if taken.count(n) > 1}:
        errors.setdefault("node_map", []).append(f"'{node}' is matched to two billed ids.")
    if errors:
        raise ValidationError(errors)
    # Answers to the reading's questions turn the asked lines into GPU lines whose billed ids
    # were not in the node table yet: read again, for their node identity to be confirmed.
    asked = {q.get("instance_type") for q in upload.inspection.get("questions") or []}
    answered = clean_answers != dict(upload.mapping.get("answers") or {})
    regroup = answered and bool(asked & set(clean_answers))
    mapping = {
        "profile": profile,
        "columns": {} if reread else clean_cols,
        "overrides": clean_over,
        "answers": clean_answers,
        "node_map": clean_nodes,
    }
    return mapping, reread or regroup


@transaction.atomic
def usage_map_bill(
    *,
    upload: UsageUpload,
    user: User,
    profile: str,
    columns: dict[str, str],
    overrides: dict[str, Any] | None = None,
    answers: dict[str, Any] | None = None,
    node_map: dict[str, str] | None = None,
) -> UsageUpload:
    """Confirm how a bill is read (profile, the detected dialect as corrected, columns, GPUs of
    unknown instance types, which contract node each billed id is) and reconcile it; a change
    to how the file is cut into rows reads it again first, for the columns to be confirmed.
    As with `usage_map`, a provider member's settings become the provider's saved ones and a
    buyer's apply to this file only; the node identity is this reservation's, never saved for
    the provider. Every change is on the audit chain."""
    reservation = upload.reservation
    usage_move(reservation, "usage_map", user=user)
    nodes = selectors.contract_nodes(reservation=reservation)
    mapping, reread = _clean_bill_mapping(
        upload=upload,
        profile=profile,
        columns=columns,
        overrides=overrides or {},
        answers=answers or {},
        node_map=node_map or {},
        nodes=nodes,
    )
    before = dict(upload.mapping)
    settings_of = lambda m: {k: m.get(k) for k in ("profile", "columns", "overrides", "answers")}  # noqa: E731
    scope = MappingScope.FILE
    if usage_party(reservation, user=user) == "provider":
        scope = MappingScope.PROVIDER
        saved = selectors.provider_mapping(provider_id=reservation.bid.provider_id)
        saved_before = saved.as_json() if saved else {}
        if not reread:
            UsageMapping.objects.update_or_create(
                provider_id=reservation.bid.provider_id,
                defaults={
                    "profile": profile,
                    "columns": mapping["columns"],
                    "overrides": mapping["overrides"],
                    "answers": mapping["answers"],
                    "date_format": "",
                    "updated_by": user,
                },
            )
            if saved_before != settings_of(mapping):
                _record(
                    upload,
                    "usage.mapping_changed",
                    user,
                    before=saved_before,
                    after=settings_of(mapping) | {"scope": "provider"},
                )
    elif settings_of(before) != settings_of(mapping) or upload.mapping_scope != scope:
        _record(
            upload,
            "usage.file_mapping_set",
            user,
            before=settings_of(before),
            after=settings_of(mapping) | {"scope": "file"},
        )
    if dict(before.get("node_map") or {}) != mapping["node_map"]:
        # Which billed id is which contract node decides which outage a line is checked
        # against: on the chain like the mapping itself.
        _record(
            upload,
            "usage.node_map_set",
            user,
            before={"node_map": dict(before.get("node_map") or {})},
            after={"node_map": mapping["node_map"], "contract_nodes": nodes},
        )
    upload.mapping, upload.mapping_scope, upload.mapping_set_by = mapping, scope, user
    upload.error, upload.error_line, upload.error_column = "", None, ""
    upload.state = UsageState.MAPPING if reread else UsageState.QUEUED
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
    if reread:
        _queue_inspection(upload)
    else:
        _queue(upload)
    return upload


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
        row.inspection = bills.failed_inspection(message=str(exc), line=exc.line, nodes=nodes)
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


@transaction.atomic
def usage_retry(*, upload: UsageUpload, user: User) -> UsageUpload:
    """Run a failed reconciliation again, or queue one that never reached a worker."""
    usage_move(upload.reservation, "usage_retry", user=user)
    row = UsageUpload.objects.select_for_update().get(pk=upload.pk)
    if row.state not in (UsageState.ERROR, UsageState.QUEUED):
        raise ServiceError(f"This file is {row.get_state_display().lower()}: nothing to retry.")
    if bills.is_bill(row.mapping):
        if not row.mapping.get("columns"):
            raise ServiceError("Confirm the columns first: the file cannot be read without them.")
    elif Mapping.from_json(row.mapping).missing(row.headers):
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
    other: dict[str, int] = {}
    warnings: list[dict[str, Any]] = []
    try:
        contract = selectors.contract_for(reservation=row.reservation)
        if bills.is_bill(row.mapping):
            result, other, warnings = _reconcile_bill(row, contract)
        else:
            table = open_table(row.read_bytes(), name=row.original_name)
            result = reconcile(
                read_lines(table, Mapping.from_json(row.mapping)), contract, max_listed=MAX_LISTED
            )
    except UsageError as exc:
        with transaction.atomic():
            row.differences.all().delete()
            row.warnings = []
            row.save(update_fields=["warnings", "inspection", "inspected_at", "headers"])
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
            # Tax, credits, discounts, refunds...: listed beside the usage, never in it.
            "other": {k: str(dollars(v)) for k, v in sorted(other.items())},
            "other_total": str(dollars(sum(other.values()))),
        }
        row.warnings = warnings
        row.state, row.error, row.error_line, row.error_column = UsageState.DONE, "", None, ""
        row.reconciled_at, row.reconciled_mapping = timezone.now(), dict(row.mapping)
        row.save()
    return row


def _reconcile_bill(
    row: UsageUpload, contract: Contract
) -> tuple[Result, dict[str, int], list[dict[str, Any]]]:
    """Read the bill with its confirmed settings (refreshing the stored inspection), rename
    billed ids to contract nodes through the confirmed node map, and reconcile its usage,
    egress and fee lines only. Returns the result, the other charges' totals per class, and
    what could not be checked (outages on nodes no billed id is, lines of ids that are no
    contract node)."""
    reservation = row.reservation
    nodes = selectors.contract_nodes(reservation=reservation)
    bill = _inspect(
        row, row.read_bytes(), nodes=nodes, node_gpus=selectors.node_gpus(reservation=reservation)
    )
    if bill is None:
        inspected = row.inspection
        raise UsageError(str(inspected.get("error") or "The file cannot be read."))
    if bill.questions:
        kinds = ", ".join(
            f"'{q.instance_type}'" if q.instance_type else "(no type)" for q in bill.questions
        )
        raise UsageError(
            f"{len(bill.questions)} instance type(s) have no known GPU count ({kinds}): answer "
            "on the mapping page how many GPUs one instance has.",
            line=bill.questions[0].lines[0] if bill.questions[0].lines else None,
        )
    if bill.errors:
        count = len(bill.errors) + bill.more_errors
        first = bill.errors[0]
        raise UsageError(
            f"{count} cell(s) cannot be read, all listed on the mapping page; the first: {first}",
            line=first.line,
            column=first.column,
        )
    billed = bills.billed_nodes(bill)
    node_map = _node_map(row.mapping, billed, nodes)
    lines = [replace(u, node=node_map[u.node]) if u.node in node_map else u for u in bill.lines]
    result = reconcile(lines, contract, max_listed=MAX_LISTED)
    other: dict[str, int] = {}
    for u in bill.other:
        other[u.charge or u.kind] = other.get(u.charge or u.kind, 0) + (u.amount or 0)
    return result, other, _warnings(bill.lines, node_map, nodes, contract)


def _warnings(
    lines: list[UsageLine], node_map: dict[str, str], nodes: list[str], contract: Contract
) -> list[dict[str, Any]]:
    """What the reconciliation could not check, said rather than silenced."""
    out: list[dict[str, Any]] = []
    if not nodes:
        out.append(
            {
                "kind": "no-nodes",
                "node": "",
                "lines": [],
                "count": 0,
                "message": "No node of this reservation is named yet (no burn-in node label, "
                "no incident naming a node): the billed ids are checked as billed, and an "
                "outage of a named node matches no line.",
            }
        )
    unmatched: dict[str, list[int]] = {}
    for u in lines:
        if u.kind == GPU and u.node and u.node not in node_map:
            unmatched.setdefault(u.node, []).append(u.line)
    for billed, found in unmatched.items():
        if not nodes:
            break
        out.append(
            {
                "kind": "unmatched-billed",
                "node": billed,
                "lines": found[:20],
                "count": len(found),
                "message": f"'{billed}' is billed on {len(found)} line(s) (first: line "
                f"{', '.join(str(n) for n in found[:5])}) but is matched to no node of this "
                "reservation: confirm which node it is, or dispute the lines.",
            }
        )
    matched = set(node_map.values())
    for outage in contract.outages:
        if outage.node and outage.node not in matched:
            out.append(
                {
                    "kind": "unmatched-outage",
                    "node": outage.node,
                    "lines": [],
                    "count": 0,
                    "message": f"{outage.label} took '{outage.node}' out of service, but no "
                    f"billed id is matched to '{outage.node}': lines billed for it during the "
                    "outage cannot be found. Confirm the node identity table.",
                }
            )
    return out


def usage_mark_error(*, upload_id: int, error: BaseException) -> None:
    """A crash the parser did not foresee, or the time limit: the row says so (with Retry)
    rather than staying 'reconciling'."""
    if isinstance(error, SoftTimeLimitExceeded):
        limit = settings.CELERY_TASK_SOFT_TIME_LIMIT
        reason = f"The reconciliation ran past its time limit ({limit} s) and was stopped."
    else:
        reason = f"The reconciliation failed unexpectedly ({type(error).__name__})."
    UsageUpload.objects.filter(pk=upload_id).update(state=UsageState.ERROR, error=reason)


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
