"""`/api/v1/fixture-schema/`: the JSON Schema of a fixture spec, public like the API schema."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from engine.evidence.fixtures import FIXTURE_SCHEMA


@require_GET
def fixture_schema(request: HttpRequest) -> JsonResponse:
    # A plain view, not an API operation: the same document for everyone, no token needed.
    return JsonResponse(FIXTURE_SCHEMA, content_type="application/schema+json")
