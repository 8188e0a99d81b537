"""OpenAPI details drf-spectacular cannot guess: the shared error body on every operation,
and the evidence upload endpoint's shapes (its view lives in api/views/evidence.py)."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.db import models
from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiViewExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import serializers

from api.idempotency import IDEMPOTENCY_PARAMETER
from api.serializers.common import FileListField
from api.serializers.evidence import CheckSerializer, EvidenceSerializer

ERROR_REF = {"$ref": "#/components/schemas/Error"}
ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "detail": {"type": "string"},
        "errors": {
            "type": "object",
            "description": "Field name (or `answers.<question key>`) → messages.",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
    },
    "required": ["detail"],
}
ERRORS = {
    "400": "The input or a rule refused the call; `errors` names the fields.",
    "401": "No credentials, or an invalid or revoked token.",
    "403": "Signed in, but the call is not allowed (e.g. a missing CSRF token).",
    "404": "Not found, or not yours to see.",
    "422": "The Idempotency-Key was already used with a different body.",
    "409": "The object's state does not allow this move now (already decided, closed, sealed, "
    "or another one waits); `detail` says which and what would allow it.",
    "429": "Too many writes with this token; retry after the Retry-After seconds.",
    "503": "The task queue, or the rate limiter's store, is unreachable: what the call stored "
    "waits to be queued (the body says where); retry after the Retry-After seconds.",
}
WRITE_ONLY = {"400", "409", "422", "429", "503"}

# Rules a JSON schema cannot hold: a file's contents, one field against another, a value that
# depends on who calls or on what is stored. Each operation's description states its rule, and
# a body the schema allows but the rule refuses is a 400 naming the field. The Schemathesis run
# (tests/api/v1/test_schemathesis.py) reads this table: only these operations may answer a
# schema-valid body with 400.
STATED_RULES: dict[str, str] = {
    "requests_create": "the reservation ends after it starts, the bid deadline falls before "
    "the reservation starts, and the backend bandwidth per GPU is above 0 Gb/s",
    "requests_partial_update": "the same date and bandwidth rules as creating a request, "
    "checked on the request as it will be",
    "requests_invitations_create": "every slug names a provider organisation",
    "requests_addenda_create": "a new `bid_deadline` is later than the current one",
    "requests_fixture_partial_update": "each key of `changes` is a dotted path of the fixture "
    "spec and its value one the spec takes there, and each changed threshold has its reason "
    "in `reasons`",
    "requests_lots_fixture_partial_update": "the same rules as editing the request's fixture",
    "requests_annexes_create": "`period` (YYYY-MM) is given for a monthly statement and for no "
    "other kind",
    "requests_terms_partial_update": "a more severe level never has a slower clock (S1 ≤ S2 ≤ "
    "S3), percentages lie between 0 and 100, and S2 counted as downtime excludes a partial "
    "`degraded_downtime_pct`",
    "requests_team_mine_update": "at least one weight is above zero, and each judgement's "
    "`bid` is a submitted bid on this request",
    "requests_weights_update": "at least one weight is above zero",
    "requests_reopen_create": "`bid_deadline` is given, in the future and before the "
    "reservation starts",
    "requests_approvals_create": "an award names its `bid`, a submitted bid on this request, "
    "with a `justification` of one full sentence where the ranking does not put it first; a "
    "publish names no bid",
    "approvals_approve_create": "`on_behalf_of`, when given, is a member of the buyer",
    "approvals_decline_create": "`reason` is at least one full sentence",
    "requests_final_round_create": "the new deadline is in the future, and each id in "
    "`shortlist` is a submitted bid on this request",
    "reservations_incidents_create": "`signal` is one the calling party opens from (a buyer: "
    "slow job, other), and the window lies within the reservation's term",
    "reservations_usage_create": "`file` is a CSV or XLSX usage or invoice file",
    "reservations_usage_mapping_update": "every column the file's kind needs is named",
    "reservations_baseline_create": "`file` is a step-time CSV (rank,node,step,seconds,"
    "timestamp or time,step,step_seconds[,rank])",
    "reservations_incidents_step_times_create": "`file` is a step-time CSV, as for the baseline",
    "reservations_failed_runs_create": "`file` holds the failed job's logs or an archive of them",
    "runs_evidence_upload": "each `file` is burn-in evidence a parser reads (`kind` names one, "
    "or it is detected)",
    "incidents_evidence_create": "`file` is evidence of the named `kind`",
    "pilots_evidence_upload": "each `file` is evidence a parser reads (`kind` names one, or it "
    "is detected)",
    "changes_canary_evidence_upload": "each `file` is evidence a parser reads (`kind` names "
    "one, or it is detected)",
    "changes_answer_create": "an objection gives its `reason`",
    # An id in the body must name an object of this one: a JSON schema cannot say which ids.
    "requests_award_create": "`bid` is a bid on this request",
    "incidents_changes_create": "each id in `evidence` is recovery evidence on this incident",
    "incidents_changes_apply_create": "each id in `evidence` is recovery evidence on this incident",
    "reservations_accept_create": "`run` is a burn-in run of this reservation",
    "reservations_changes_create": "`window` is one of this reservation's maintenance windows, "
    "agreed or given with notice, not yet open and at least the terms' notice ahead; the "
    "versions differ; `nodes` lie within the window's nodes; and `canary_nodes` are among the "
    "nodes the change reaches, fewer than them",
    "requests_pilots_create": "the last day is on or after the first and at most 14 days after it",
    "incidents_signoff_create": "`key` names an item on this incident's checklist that the "
    "calling party signs",
    "incidents_severity_create": "the terms give clocks for the proposed severity",
    "incidents_estimates_create": "`eta` is not in the past",
    "incidents_signoff_disputes_create": "`key` names an item on this incident's checklist "
    "that the other party signs off, and `reason` says why",
    "bids_create": "the offer ends after it starts",
    "bids_attachments_create": "`file` is a PDF, a PNG or JPEG image, or UTF-8 text, by its "
    "content whatever its name",
    "bids_partial_update": "the offer ends after it starts, and on a request with lots each "
    "lot offer and bundle condition names a lot of the request within its bounds",
    "reservations_maintenance_create": "the window lies within the reservation's term and "
    "ends after it starts",
    "members_invitations_create": "`role` is one of the organisation's kind's roles (buyer: "
    "requester, approver, admin; provider: engineer, approver, admin)",
    "requests_lots_create": "a divisible lot gives a minimum block of at most its nodes (an "
    "indivisible one none), the region is known, and the lot's reservation ends after it starts",
    "requests_lots_partial_update": "the same rules as adding a lot, checked on the lot as it "
    "will be",
    "requests_scenarios_create": "the rules agree with each other (at most as many providers as "
    "the minimum allows, minimum shares totalling at most 100 %, no excluded provider with a "
    "minimum share, a required useful-hours floor only when minimising cost)",
    "bids_submit_create": "the draft answers every required question, has no conflict left "
    "unresolved or unkept, and on a request with lots offers at least one lot (each missing "
    "answer is named `answers.<key>`)",
    "bids_conflicts_keep_create": "`reason` is a full sentence (several different words, ending "
    "with a full stop) and `key` names a conflict the draft has",
    "organization_signing_identity_create": "`pkcs12` is a PKCS#12 file that `password` opens, "
    "holding a private key and its certificate, fit for signing and not expired",
    "reservations_override_create": "`run` is a burn-in run of this reservation, and while the "
    "gate has not passed, `reason` is a full sentence and `waived` ticks every blocking check",
    "reservations_observed_create": "`file` is not empty",
    "reservations_inference_create": "`file` is not empty and `label` has at most 120 characters",
    "requests_fixture_references_create": "`cluster` names the cluster a run of kind "
    "`other_cluster` is from",
    "reservations_observed_figures_retrieve": "`period` names a month of the term to date",
    "webhooks_create": "`url` is an https:// URL naming a host that resolves only to public "
    "addresses, `events` are among those the organisation's kind is sent, and the `pagerduty` "
    "format gives its `routing_key`",
    "webhooks_partial_update": "the same rules as adding an endpoint, checked on the endpoint "
    "as it will be (a stored routing key stays unless a new one is given)",
}


class ApiAutoSchema(AutoSchema):
    """Only a GET lists: a write that answers several rows (inviting providers) answers them
    as a plain array, and takes no filter, ordering or page parameters. A list that may not
    be empty says so (`minItems`)."""

    def get_filter_backends(self) -> list[Any]:
        return super().get_filter_backends() if self.method == "GET" else []

    def _get_paginator(self) -> Any:
        return super()._get_paginator() if self.method == "GET" else None

    def _insert_field_validators(self, field: Any, schema: dict[str, Any]) -> None:
        if getattr(field, "stated_schema", None) is None:  # a stated rule is exactly that
            super()._insert_field_validators(field, schema)

    def _map_serializer_field(
        self, field: Any, direction: Any, bypass_extensions: bool = False
    ) -> Any:
        stated = getattr(field, "stated_schema", None)
        if stated is not None:  # api.serializers.common.stated: exactly the rule, no blank
            schema = dict(stated)
            if field.help_text:
                schema["description"] = str(field.help_text)
            return schema
        if _blank_choice_read(field):
            # DRF drops `allow_blank` from a read-only model field, so the schema's enum would
            # leave out the "" that such a field does hold (a bid's `gpu_model` not chosen yet).
            field.allow_blank = True  # a read-only field: nothing it reads is checked by it
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if (
            isinstance(field, serializers.ListField | serializers.MultipleChoiceField)
            and not field.allow_empty
            and schema.get("type") == "array"
        ):
            schema.setdefault("minItems", 1)
        if isinstance(field, serializers.FileField) and not field.allow_empty_file:
            schema.setdefault("minLength", 1)  # an empty file is refused
        if isinstance(field, serializers.DecimalField) and schema.get("type") == "string":
            bounded = _bounded_decimal(field)
            if bounded:
                schema["pattern"] = bounded
        return schema


def _blank_choice_read(field: Any) -> bool:
    """A read-only choice field over a model column that may be blank."""
    if not isinstance(field, serializers.ChoiceField) or not field.read_only or field.allow_blank:
        return False
    model = getattr(getattr(field.parent, "Meta", None), "model", None)
    if model is None or not field.source or "." in field.source:
        return False
    try:
        column = model._meta.get_field(field.source)
    except FieldDoesNotExist:
        return False
    return bool(getattr(column, "blank", False)) and isinstance(column, models.CharField)


def _bounded_decimal(field: serializers.DecimalField) -> str | None:
    """A decimal sent as a string cannot carry `minimum`/`maximum`: its pattern states the
    bounds the API checks (non-negative, positive, at least 1, at most 100)."""
    if field.max_digits is None or field.decimal_places is None:
        return None
    places, whole = field.decimal_places, field.max_digits - field.decimal_places
    low, high = field.min_value, field.max_value
    if low is None or low < 0 or whole < 1 or places < 1:
        return None
    fraction = rf"(?:\.\d{{0,{places}}})?"
    if high is not None and high == 100 and whole >= 3 and low == 0:
        return rf"^(?:100(?:\.0{{0,{places}}})?|\d{{1,2}}{fraction}|\.\d{{1,{places}}})$"
    if high is not None:
        return None
    if low == 0:
        return rf"^(?:\d{{1,{whole}}}{fraction}|\.\d{{1,{places}}})$"
    if low == 1:
        return rf"^[1-9]\d{{0,{whole - 1}}}{fraction}$"
    if low == Decimal(1).scaleb(-places):  # the smallest positive value: any positive one
        tails = "|".join(
            "0" * k + "[1-9]" + (rf"\d{{0,{places - 1 - k}}}" if places - 1 - k else "")
            for k in range(places)
        )
        return rf"^(?:[1-9]\d{{0,{whole - 1}}}{fraction}|0?\.(?:{tails}))$"
    return None


# DRF reads "", "-" and "." as no number at all; drf-spectacular's pattern lets them through.
_DECIMAL = re.compile(r"^\^-\?\\d\{0,(\d+)\}(?:\(\?:\\\.\\d\{0,(\d+)\}\)\?)?\$$")


def _decimal_pattern(pattern: str) -> str:
    match = _DECIMAL.match(pattern)
    if match is None:
        return pattern
    whole, places = match.group(1), match.group(2)
    if not places or places == "0":
        return rf"^-?\d{{1,{whole}}}$"
    return rf"^-?(?:\d{{1,{whole}}}(?:\.\d{{0,{places}}})?|\.\d{{1,{places}}})$"


def _stated_rules(node: Any) -> None:
    """Walk the schema: decimals need a digit, and a property marked `x-required` (a rule the
    service words itself, e.g. `confirm` must be true) joins its object's `required`."""
    if isinstance(node, list):
        for item in node:
            _stated_rules(item)
        return
    if not isinstance(node, dict):
        return
    if node.get("format") == "decimal" and isinstance(node.get("pattern"), str):
        node["pattern"] = _decimal_pattern(node["pattern"])
    properties = node.get("properties")
    if isinstance(properties, dict):
        for name, prop in properties.items():
            required = node.setdefault("required", [])
            if isinstance(prop, dict) and prop.pop("x-required", False) and name not in required:
                required.append(name)
        if not node["required"]:
            del node["required"]
    for value in node.values():
        _stated_rules(value)


FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")


def _resolved(node: Any, schemas: dict[str, Any]) -> dict[str, Any]:
    while isinstance(node, dict) and "$ref" in node:
        node = schemas.get(node["$ref"].rsplit("/", 1)[-1], {})
    if isinstance(node, dict) and len(node.get("allOf", [])) == 1:
        node = {**_resolved(node["allOf"][0], schemas), **node}
    return node if isinstance(node, dict) else {}


def _form_cannot_hold(prop: Any, schemas: dict[str, Any]) -> bool:
    """A form field is text or a file: it cannot say null, nor hold an object or a list of
    them (`eta=null` is the text "null", and a nested object has no form spelling)."""
    prop = _resolved(prop, schemas)
    if prop.get("nullable") or prop.get("type") == "object":
        return True
    items = _resolved(prop.get("items"), schemas) if prop.get("type") == "array" else {}
    return bool(items) and (items.get("type") in ("object", "array") or bool(items.get("nullable")))


def _is_file(prop: Any, schemas: dict[str, Any]) -> bool:
    prop = _resolved(prop, schemas)
    items = _resolved(prop.get("items"), schemas) if prop.get("type") == "array" else {}
    return "binary" in (prop.get("format"), items.get("format"))


def _request_bodies(result: dict[str, Any]) -> None:
    """A body whose schema requires a field is itself required (drf-spectacular decides before
    `x-required` joins `required`, so `{"confirm": true}` read as optional and an empty call as
    valid). A body without files that a form cannot hold is documented as JSON only; the
    parsers still read forms for the browsable API."""
    schemas = result.get("components", {}).get("schemas", {})
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            body = operation.get("requestBody") if isinstance(operation, dict) else None
            if not body or not body.get("content"):
                continue
            schema = _resolved(next(iter(body["content"].values())).get("schema"), schemas)
            if schema.get("required"):
                body["required"] = True
            properties = schema.get("properties", {}).values()
            if (
                "application/json" in body["content"]
                and any(_form_cannot_hold(p, schemas) for p in properties)
                and not any(_is_file(p, schemas) for p in properties)
            ):
                for media_type in FORMS:
                    body["content"].pop(media_type, None)


def add_error_responses(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """Document the shared error body on every operation that can answer with it."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    _stated_rules(result)
    _request_bodies(result)
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            responses = operation.setdefault("responses", {})
            rule = STATED_RULES.get(operation.get("operationId", ""))
            if rule:
                said = f"Refused with 400 naming the field unless {rule}."
                operation["description"] = "\n\n".join(
                    part for part in (operation.get("description", ""), said) if part
                )
            for code, text in ERRORS.items():
                if code in WRITE_ONLY and method == "get" and code != "400":
                    continue
                responses.setdefault(
                    code,
                    {"description": text, "content": {"application/json": {"schema": ERROR_REF}}},
                )
    return result


class UploadResultSerializer(serializers.Serializer):
    run = serializers.IntegerField(required=False)
    files = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="Per file: the stored evidence (with `duplicate`) or `{name, error}`.",
    )
    detail = serializers.CharField(required=False)
    errors = serializers.DictField(required=False)  # type: ignore[assignment]


class EvidenceUploadSerializer(serializers.Serializer):
    file = FileListField(help_text="One or more files.")
    node = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="gpu-a01, gpu-a01+gpu-a02 for a subset run, empty for the whole allocation",
    )
    kind = serializers.CharField(
        required=False, allow_blank=True, help_text="The parser to use; detected when empty."
    )


class _RunRef(serializers.Serializer):
    id = serializers.IntegerField()
    label = serializers.CharField()  # type: ignore[assignment]
    reservation = serializers.IntegerField(allow_null=True, help_text="Null on a pilot's run.")
    pilot = serializers.IntegerField(allow_null=True, help_text="Null on a burn-in run.")
    canary = serializers.IntegerField(
        allow_null=True, help_text="Set on a release canary's run (see /changes/{id}/)."
    )


class _Gate(serializers.Serializer):
    passed = serializers.BooleanField(allow_null=True)
    summary = serializers.CharField()


class RunEvidenceStateSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="Evidence files matching the filters.")
    next = serializers.URLField(allow_null=True, help_text="The next page of files.")
    previous = serializers.URLField(allow_null=True)
    results = EvidenceSerializer(many=True, help_text="This page of the run's evidence files.")
    run = _RunRef()
    checks_state = serializers.CharField()
    checks_current = serializers.BooleanField()
    checks_error = serializers.CharField(allow_null=True)
    gate = _Gate(allow_null=True)
    checks = CheckSerializer(many=True)


PAGE_PARAMETERS = [
    OpenApiParameter(
        "page",
        {"type": "integer", "minimum": 1, "maximum": 1_000_000_000},
        description="A page number, from 1; past the last page is a 404.",
    ),
    OpenApiParameter(
        "page_size",
        {"type": "integer", "minimum": 1, "maximum": 200},
        description="Results per page, 1 to 200 (50 when not given).",
    ),
]


class RunEvidenceViewSchema(OpenApiViewExtension):
    target_class = "api.views.evidence.RunEvidenceView"
    operation = "runs_evidence"
    what = "burn-in evidence"
    of = "a run"

    def view_replacement(self) -> Any:
        @extend_schema_view(
            get=extend_schema(
                operation_id=f"{self.operation}_retrieve",
                summary=f"Per-file parse state (paginated), the checks and the gate of {self.of}",
                responses=RunEvidenceStateSerializer,
                parameters=PAGE_PARAMETERS,
                filters=True,
            ),
            post=extend_schema(
                operation_id=f"{self.operation}_upload",
                summary=f"Upload {self.what} (multipart field `file`, repeatable)",
                request={"multipart/form-data": EvidenceUploadSerializer},
                parameters=[IDEMPOTENCY_PARAMETER],
                responses={
                    201: UploadResultSerializer,
                    200: OpenApiResponse(UploadResultSerializer, "Every file was a duplicate."),
                    400: OpenApiResponse(
                        UploadResultSerializer,
                        "A file was refused (`errors.file`); `files` lists those stored anyway.",
                    ),
                },
            ),
        )
        class Fixed(self.target_class):  # type: ignore[name-defined]
            pass

        return Fixed


class PilotEvidenceViewSchema(RunEvidenceViewSchema):
    target_class = "api.views.pilots.PilotEvidenceView"
    operation = "pilots_evidence"
    what = "a pilot's evidence"
    of = "a pilot"


class CanaryEvidenceViewSchema(RunEvidenceViewSchema):
    target_class = "api.views.changes.CanaryEvidenceView"
    operation = "changes_canary_evidence"
    what = "a release canary's evidence"
    of = "a canary"


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "api.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <secret>`: create a token at /account/tokens/.",
        }
