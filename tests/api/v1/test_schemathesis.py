"""schemathesis against the live schema, in-process through Django's WSGI app.

A handful of generated examples per operation (bounded so the suite stays fast), as a buyer
and as a provider with API tokens: no response is a 500, and every response matches the schema.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from api.services import token_create
from config.wsgi import application

MAX_EXAMPLES = 5
CHECKS = [
    not_a_server_error,
    response_schema_conformance,
    content_type_conformance,
    status_code_conformance,  # every status an operation answers is documented
]


@pytest.fixture
def schema(transactional_db: Any) -> Any:
    return schemathesis.openapi.from_wsgi("/api/v1/schema/", application)


def _fuzz(schema: Any, token: str) -> list[str]:
    failures: list[str] = []
    headers = {"Authorization": f"Token {token}"}
    for result in schema.get_all_operations():
        operation = result.ok()

        @settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy())
        def run(case: Any) -> None:
            case.call_and_validate(headers=headers, checks=CHECKS)

        try:
            run()
        except Exception as exc:  # collect every operation's failure, then report them all
            failures.append(f"{operation.label}: {exc}")
    return failures


@pytest.mark.parametrize("role", ["buyer", "provider"])
def test_the_api_survives_generated_requests(role, api_world, request, schema, settings):
    settings.API_TOKEN_WRITE_RATE = "100000/min"
    assert api_world.incident.pk  # an incident to find, not only 404s on the incident routes
    user = request.getfixturevalue(role).user
    secret = token_create(user=user, name="schemathesis")[1]
    failures = _fuzz(schema, secret)
    assert not failures, "\n\n".join(failures)
