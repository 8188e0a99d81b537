"""Schemathesis with every check (`--checks all`) over the whole schema, as a buyer and as a
provider, against a live server (pytest-django's `live_server`, a real HTTP socket).

Every check counts: no 5xx, every response matches its documented status, content type, headers
and body, every schema-invalid request is refused (ST201), every schema-valid one is accepted
or refused only as the schema says it may be (ST202). Each role's run has a fixed time budget
and example count, so the whole test stays within a few minutes on a 2-core machine; any
finding fails it with Schemathesis's own report.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from api.services import token_create

MAX_EXAMPLES = int(os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "3"))
SECONDS_PER_ROLE = int(os.environ.get("SCHEMATHESIS_MAX_TIME", "100"))
SEED = 20261206


def _schemathesis(base: str, secret: str, report: Path) -> subprocess.CompletedProcess[str]:
    command = [
        str(Path(sys.executable).with_name("schemathesis")),
        "run",
        f"{base}/api/v1/schema/",
        "--checks=all",
        f"--max-examples={MAX_EXAMPLES}",
        f"--max-time={SECONDS_PER_ROLE}",
        f"--seed={SEED}",
        "--generation-deterministic",
        "--no-shrink",
        "--workers=1",
        "--request-timeout=30",
        "--suppress-health-check=all",
        f"--header=Authorization: Token {secret}",
        "--report=ndjson",
        f"--report-ndjson-path={report}",
        "--output-truncate=false",
        "--no-color",
    ]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=SECONDS_PER_ROLE * 2 + 120,
        check=False,
        cwd=report.parent,  # its own cache folder lands there, not in the checkout
        env={**os.environ, "SCHEMATHESIS_HOOKS": ""},
    )


def _failures(report: Path) -> list[dict[str, Any]]:
    found = []
    for line in report.read_text().splitlines():
        event = json.loads(line)
        found.extend(_walk_failures(event))
    return found


def _walk_failures(event: Any) -> list[dict[str, Any]]:
    if isinstance(event, dict):
        if "failure" in event and isinstance(event["failure"], dict):
            return [event["failure"]]
        return [f for value in event.values() for f in _walk_failures(value)]
    if isinstance(event, list):
        return [f for value in event for f in _walk_failures(value)]
    return []


@pytest.mark.parametrize("role", ["buyer", "provider"])
def test_the_api_passes_every_schemathesis_check(
    role: str, api_world: Any, request: Any, live_server: Any, settings: Any, tmp_path: Path
) -> None:
    settings.API_TOKEN_WRITE_RATE = "100000/min"
    assert api_world.incident.pk  # an incident to find, not only 404s on the incident routes
    user = request.getfixturevalue(role).user
    secret = token_create(user=user, name="schemathesis")[1]
    report = tmp_path / "events.ndjson"
    run = _schemathesis(live_server.url, secret, report)
    if os.environ.get("SCHEMATHESIS_OUTPUT"):  # the whole report, for reading at leisure
        Path(f"{os.environ['SCHEMATHESIS_OUTPUT']}.{role}.txt").write_text(run.stdout + run.stderr)
    assert run.returncode == 0, run.stdout[-30000:] + run.stderr[-4000:]
