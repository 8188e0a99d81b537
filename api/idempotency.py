"""`Idempotency-Key` on creating endpoints: a retried curl never creates twice.

Same key + same user + same acting organisation + same body: the stored response comes back
(header `Idempotent-Replayed: true`) and nothing new is created. Same key with a different body:
422. A member of two organisations who reuses a key for the other one is not replayed the first
one's answer.
The call and the stored response commit together, so a concurrent retry cannot slip through.
A secret the answer shows once (a webhook's signing secret) is stored as null: a replay says
what was created, never the secret (`idempotent_withholding`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.db import IntegrityError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import exceptions, status
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from api.models import IdempotentResponse
from api.permissions import api_org, api_user
from core.uploads import atomic_keeping_no_orphans, sha256_of

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 200

IDEMPOTENCY_PARAMETER = OpenApiParameter(
    HEADER,
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description=(
        "Any unique string (e.g. a UUID). A retry with the same key and body returns the first "
        "response and creates nothing; the same key with another body is refused with 422."
    ),
)


class IdempotencyKeyReused(exceptions.APIException):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    default_code = "idempotency_key_reused"


def _file_digest(upload: Any) -> str:
    return f"{upload.name}:{sha256_of(upload)}"


def _fingerprint(request: Request) -> str:
    if request.FILES:  # multipart: the fields, plus each file's name and content digest
        fields = dict(request.POST.lists())
        uploads = {k: [_file_digest(f) for f in v] for k, v in request.FILES.lists()}
        payload: Any = {"fields": fields, "files": uploads}
    else:
        payload = request.data
    body = json.dumps(payload, sort_keys=True, default=str, separators=(",", ":"))
    text = f"{request.method} {request.path}\n{body}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _replay(record: IdempotentResponse, fingerprint: str) -> Response:
    if record.body_sha256 != fingerprint:
        raise IdempotencyKeyReused(
            f"The {HEADER} '{record.key}' was already used for a different request "
            f"({record.method} {record.path} with another body). Use a new key for a new request."
        )
    return Response(record.body, status=record.status_code, headers={"Idempotent-Replayed": "true"})


def idempotent(handler: Callable[..., Response]) -> Callable[..., Response]:
    """Wrap a view's `post`: with the header set, store its 2xx answer under the key."""
    return _stored(handler, withheld=())


def idempotent_withholding(
    *fields: str,
) -> Callable[[Callable[..., Response]], Callable[..., Response]]:
    """`idempotent`, storing these top-level fields of the answer as null: what is shown once
    is never kept in clear, and a replay does not show it again."""

    def decorate(handler: Callable[..., Response]) -> Callable[..., Response]:
        return _stored(handler, withheld=fields)

    return decorate


def _stored(
    handler: Callable[..., Response], *, withheld: tuple[str, ...]
) -> Callable[..., Response]:
    @wraps(handler)
    def wrapped(view: Any, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = request.headers.get(HEADER, "").strip()
        if not key:
            return handler(view, request, *args, **kwargs)
        if len(key) > MAX_KEY_LENGTH:
            raise exceptions.ValidationError(
                {HEADER: [f"Use at most {MAX_KEY_LENGTH} characters."]}
            )
        fingerprint = _fingerprint(request)
        user, org = api_user(request), api_org(request)
        mine = IdempotentResponse.objects.filter(user=user, organization=org, key=key)
        found = mine.first()
        if found is not None:
            return _replay(found, fingerprint)
        try:
            # The loser of a race on one key rolls back: its stored files go with it.
            with atomic_keeping_no_orphans():
                response = handler(view, request, *args, **kwargs)
                if status.is_success(response.status_code):
                    body = json.loads(JSONRenderer().render(response.data) or b"null")
                    if isinstance(body, dict):
                        body.update(dict.fromkeys(set(withheld) & set(body)))
                    IdempotentResponse.objects.create(
                        user=user,
                        organization=org,
                        key=key,
                        method=request.method or "",
                        path=request.path[:500],
                        body_sha256=fingerprint,
                        status_code=response.status_code,
                        body=body,
                    )
        except IntegrityError:
            # The same key committed first in a concurrent call: ours rolled back; replay theirs.
            found = mine.first()
            if found is None:
                raise
            return _replay(found, fingerprint)
        return response

    return wrapped
