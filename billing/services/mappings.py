"""Setting how a file is read: a simple column mapping, or a bill's profile, columns, reading
settings, answers and node map. A provider member's becomes the provider's saved mapping; a
buyer's applies to its file alone. Both are on the audit chain."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from billing import bills, selectors
from billing.lifecycle import usage_move, usage_party
from billing.models import (
    MappingScope,
    UsageMapping,
    UsageState,
    UsageUpload,
)
from billing.services.common import (
    UsageRefused,
    _queue,
    _queue_inspection,
    _record,
    refuse_bad_cells,
)
from engine.billing import (
    FIELDS,
    PROFILES,
    UNITS,
    Mapping,
)
from engine.billing.localized import DATE_ORDERS
from engine.billing.mapping import REQUIRED


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
    if problem := _date_format_problem(mapping.date_format):
        errors["date_format"] = [problem]
    for field in REQUIRED:
        if not clean[field]:
            errors.setdefault(field, [f"Say which column holds the {FIELDS[field].lower()}."])
    if errors:
        raise ValidationError(errors)
    return mapping


# A moment whose every part differs, to tell a format that reads it back from one that cannot.
_PROBE = datetime(2026, 3, 1, 14, 5, 6)


def _date_format_problem(date_format: str) -> str:
    """Why a typed date format cannot read any date ('' when it can, or when it is empty)."""
    if not date_format:
        return ""
    example = "e.g. %d/%m/%Y %H:%M (%d day, %m month, %Y year, %H:%M hour and minute)"
    if "%Y" not in date_format and "%y" not in date_format:
        return (
            f"'{date_format}' has no year (%Y or %y): write the format with date codes, {example}."
        )
    try:
        datetime.strptime(_PROBE.strftime(date_format), date_format)
    except ValueError:
        return f"'{date_format}' holds a code that is not a date code; use codes such as {example}."
    return ""


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
    _refuse_bad_first_rows(upload, mapping)
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
    _set(upload, mapping.to_json(), scope=scope, user=user, state=UsageState.QUEUED)
    _queue(upload)
    return upload


def _refuse_bad_first_rows(upload: UsageUpload, mapping: Mapping) -> None:
    """The first rows kept at upload, read with this mapping: a cell they cannot read is
    refused now, named, rather than found by the worker (the rest of the file is read there,
    and a bad cell further down fails the reconciliation with its line and column)."""
    shown = selectors.usage_preview(upload=upload, mapping=mapping)
    cells = [row.error for row in shown.rows if row.error]
    if cells:
        raise UsageRefused(
            f"Cannot confirm this mapping: {len(cells)} of the first {len(shown.rows)} lines "
            f"of {upload.original_name} cannot be read with it (each is listed). Fix "
            "the file and upload it again, or map the columns that misread them.",
            field="cells",
            errors=cells,
            upload=upload,
        )


def _past_bad_cells(
    upload: UsageUpload, *, before: dict[str, Any], mapping: dict[str, Any]
) -> bool:
    """Whether a bill whose reading found bad cells must be read again before anything is
    reconciled: other columns or another decimal mark may read those cells. Read as the
    reading read it, the same cells fail: refused, each named, and nothing runs."""
    if not bills.bad_cells(upload.inspection or {})[0]:
        return False
    keys = ("profile", "columns", "overrides")
    if {k: before.get(k) or {} for k in keys} == {k: mapping.get(k) or {} for k in keys}:
        refuse_bad_cells(upload, doing="confirm this mapping")
    return True


def _set(
    upload: UsageUpload, mapping: dict[str, Any], *, scope: str, user: User, state: str
) -> None:
    """The file's mapping, whose it is, and its next state; a previous error is cleared."""
    upload.mapping, upload.mapping_scope, upload.mapping_set_by = mapping, scope, user
    upload.error, upload.error_line, upload.error_column = "", None, ""
    upload.state = state
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
    reread = reread or _past_bad_cells(upload, before=before, mapping=mapping)
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
    state = UsageState.MAPPING if reread else UsageState.QUEUED
    _set(upload, mapping, scope=scope, user=user, state=state)
    if reread:
        _queue_inspection(upload)
    else:
        _queue(upload)
    return upload
