"""The SCIM 2.0 Users endpoints (sso/scim.py), for an identity provider's SCIM client with the
organisation's bearer token."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from sso import scim
from sso.models import OidcConnection

CONTENT_TYPE = "application/scim+json"
ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error"
LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse"


@csrf_exempt  # a bearer token, never a cookie, authenticates these calls
@require_http_methods(["GET", "POST"])
def users(request: HttpRequest) -> HttpResponse:
    connection = _connection(request)
    if connection is None:
        return _unauthorised()
    try:
        if request.method == "POST":
            account = scim.account_create(connection=connection, resource=_body(request))
            return _answer(scim.resource(account, location=_location(request, account.pk)), 201)
        return _answer(_list(request, connection))
    except scim.ScimError as exc:
        return _error(exc)


@csrf_exempt
@require_http_methods(["GET", "PUT", "PATCH", "DELETE"])
def user(request: HttpRequest, pk: int) -> HttpResponse:
    connection = _connection(request)
    if connection is None:
        return _unauthorised()
    try:
        account = scim.account_get(connection=connection, pk=pk)
        if request.method == "DELETE":
            scim.account_delete(connection=connection, account=account)
            return HttpResponse(status=204)
        if request.method == "PATCH":
            scim.apply_patch(connection=connection, account=account, body=_body(request))
        elif request.method == "PUT":
            active = scim.active_value(_body(request).get("active", True))
            scim.account_set_active(connection=connection, account=account, active=active)
        account = scim.account_get(connection=connection, pk=pk)
        return _answer(scim.resource(account, location=_location(request, pk)))
    except scim.ScimError as exc:
        return _error(exc)


def _connection(request: HttpRequest) -> OidcConnection | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    return scim.connection_for_token(token.strip()) if scheme.lower() == "bearer" else None


def _list(request: HttpRequest, connection: OidcConnection) -> dict[str, Any]:
    user_name = _filter(request.GET.get("filter"))
    found = scim.accounts(connection=connection, user_name=user_name)
    start = max(_int(request.GET.get("startIndex"), 1), 1)
    count = min(max(_int(request.GET.get("count"), scim.MAX_PAGE), 0), scim.MAX_PAGE)
    page = list(found[start - 1 : start - 1 + count])
    return {
        "schemas": [LIST_SCHEMA],
        "totalResults": found.count(),
        "startIndex": start,
        "itemsPerPage": len(page),
        "Resources": [scim.resource(a, location=_location(request, a.pk)) for a in page],
    }


def _filter(expression: str | None) -> str | None:
    """The one filter providers send before creating a user: `userName eq "…"`."""
    if expression is None:
        return None
    attribute, _, rest = expression.strip().partition(" ")
    operator, _, value = rest.strip().partition(" ")
    value = value.strip()
    if attribute != "userName" or operator.lower() != "eq" or len(value) < 2 or value[0] != '"':
        raise scim.ScimError(400, 'Only the filter userName eq "…" is supported.', "invalidFilter")
    return value.strip('"')


def _int(raw: str | None, default: int) -> int:
    return int(raw) if raw and raw.isdigit() else default


def _body(request: HttpRequest) -> dict[str, Any]:
    try:
        body = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise scim.ScimError(400, "The body is not JSON.", "invalidSyntax") from None
    if not isinstance(body, dict):
        raise scim.ScimError(400, "The body is not a JSON object.", "invalidSyntax")
    return body


def _location(request: HttpRequest, pk: int) -> str:
    return request.build_absolute_uri(reverse("sso:scim-user", args=[pk]))


def _answer(body: dict[str, Any], status: int = 200) -> JsonResponse:
    return JsonResponse(body, status=status, content_type=CONTENT_TYPE)


def _error(exc: scim.ScimError) -> JsonResponse:
    body: dict[str, Any] = {"schemas": [ERROR_SCHEMA], "status": str(exc.status)}
    if exc.scim_type:
        body["scimType"] = exc.scim_type
    body["detail"] = exc.detail
    return _answer(body, exc.status)


def _unauthorised() -> JsonResponse:
    response = _error(scim.ScimError(401, "Send the organisation's SCIM token as a Bearer."))
    response["WWW-Authenticate"] = 'Bearer realm="scim"'
    return response
