"""Log lines as an operator's log pipeline reads them: one JSON object a line, each naming the
request and the acting organisation, never a body."""

from __future__ import annotations

import copy
import io
import json
import logging.config
from collections.abc import Iterator

import pytest
from django.conf import settings as django_settings

pytestmark = pytest.mark.django_db


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    """The configured handler and JSON formatter, writing to a buffer instead of stderr."""
    buffer = io.StringIO()
    config = copy.deepcopy(django_settings.LOGGING)
    config["handlers"]["console"]["formatter"] = "json"
    config["handlers"]["console"]["stream"] = buffer
    logging.config.dictConfig(config)
    yield buffer
    logging.config.dictConfig(django_settings.LOGGING)


def _lines(buffer: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in buffer.getvalue().splitlines() if line.strip()]


def test_a_request_log_line_names_the_request_and_the_organisation(buyer, json_log):
    response = buyer.client().post(
        "/no-such-page/", {"password": "hunter2"}, HTTP_X_REQUEST_ID="trace-0123456789"
    )
    assert response.status_code == 404
    assert response["X-Request-ID"] == "trace-0123456789"
    [line] = [e for e in _lines(json_log) if e["logger"] == "django.request"]
    assert line["level"] == "WARNING" and "/no-such-page/" in str(line["message"])
    assert line["request_id"] == "trace-0123456789"
    assert line["organization_id"] == str(buyer.org.pk)
    assert "hunter2" not in json_log.getvalue()


def test_an_unusable_request_id_is_replaced_and_lines_outside_a_request_say_so(client, json_log):
    response = client.get("/no-such-page/", HTTP_X_REQUEST_ID="bad id\nwith a newline")
    sent = response["X-Request-ID"]
    assert len(sent) == 32 and "\n" not in sent
    logging.getLogger("clusterbid.test").warning("outside")
    lines = _lines(json_log)
    assert lines[0]["request_id"] == sent and lines[0]["organization_id"] == "-"
    assert lines[-1]["message"] == "outside" and lines[-1]["request_id"] == "-"
