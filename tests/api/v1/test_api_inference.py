"""Served inference responses through the API, as a load generator's script would send them
(`curl -F file=@bench.json`): docs/inference-outcomes.md's worked example read against the
offer's promise; a bad log says its line and is read again on request; the same bytes twice are
one file; the parties alone read and write."""

from __future__ import annotations

from typing import Any

import pytest

from audit.models import AuditEntry
from inference.models import ServedResponsesFile, ServedState
from inference.services import served_upload
from tests.api.v1.conftest import token_client
from tests.inference.conftest import served
from tests.inference.helpers import DATA, upload

__all__ = ["served"]

pytestmark = pytest.mark.django_db


def _post(client: Any, reservation: Any, name: str, content: bytes | None = None, **fields: str):
    return client.post(
        f"/api/v1/reservations/{reservation.pk}/inference/",
        {"file": upload(name, content=content), **fields},
        format="multipart",
    )


def test_the_worked_example_is_read_against_the_promise(
    served, provider, buyer, django_capture_on_commit_callbacks
):
    client = token_client(provider.user)
    with django_capture_on_commit_callbacks(execute=True):
        posted = _post(client, served, "vllm_bench_serve.json", label="chat, concurrency 4")
    assert posted.status_code == 201
    assert (posted.json()["party"], posted.json()["label"]) == ("provider", "chat, concurrency 4")
    detail = client.get(f"/api/v1/served/{posted.json()['id']}/").json()
    assert (detail["state"], detail["kind"]) == ("parsed", "vllm_bench")
    outcome = detail["outcome"]
    assert (outcome["ttft_p50_ms"], outcome["ttft_p95_ms"]) == (150.0, 400.0)
    assert (outcome["itl_p50_ms"], outcome["itl_p95_ms"]) == (25.0, 60.0)
    assert (outcome["completed"], outcome["failed"], outcome["within_promise"]) == (5, 1, 4)
    assert outcome["throughput_tokens_per_s"] == 9.5
    assert (outcome["cost_per_response"], outcome["cost_per_response_within"]) == (
        "0.016000",
        "0.020000",
    )
    met = {row["key"]: row["met"] for row in outcome["rows"]}
    assert met == {
        "ttft_p50_ms": False, "ttft_p95_ms": False, "itl_p50_ms": True, "itl_p95_ms": False,
        "throughput_tokens_per_s": True, "cost_per_million_tokens": False,
    }  # fmt: skip

    figures = token_client(buyer.user).get(f"/api/v1/reservations/{served.pk}/inference/figures/")
    body = figures.json()
    assert body["promises_inference"] is True
    assert body["promise"]["ttft_p95_ms"] == 300.0
    assert body["promise"]["cost_per_million_tokens"] == "900.00"
    assert body["latest"]["id"] == detail["id"]
    assert body["files"]["parsed"] == 1
    listed = client.get(f"/api/v1/reservations/{served.pk}/inference/").json()
    assert [row["name"] for row in listed["results"]] == ["vllm_bench_serve.json"]


def test_the_same_bytes_again_are_the_stored_file(served, provider, buyer):
    first = _post(token_client(provider.user), served, "request_log.csv")
    again = _post(token_client(buyer.user), served, "request_log.csv")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"] and again.json()["party"] == "provider"
    assert ServedResponsesFile.objects.count() == 1


def test_a_bad_log_says_its_line_and_is_read_again(
    served, provider, django_capture_on_commit_callbacks
):
    client = token_client(provider.user)
    broken = (DATA / "request_log.csv").read_bytes().replace(b"10:00:00.250Z", b"soon")
    with django_capture_on_commit_callbacks(execute=True):
        posted = _post(client, served, "request_log.csv", broken)
    assert posted.status_code == 201  # stored first, whatever reading it finds
    detail = client.get(f"/api/v1/served/{posted.json()['id']}/").json()
    assert (detail["state"], detail["error_line"], detail["outcome"]) == ("unreadable", 3, None)
    assert detail["error"].startswith("first_token is '2026-11-30Tsoon'; expected an ISO 8601")
    with django_capture_on_commit_callbacks(execute=True):
        retried = client.post(f"/api/v1/served/{detail['id']}/retry/")
    assert retried.status_code == 202 and retried.json()["state"] == "queued"
    row = ServedResponsesFile.objects.get()
    assert (row.state, row.attempts) == (ServedState.UNREADABLE, 2)
    assert AuditEntry.objects.filter(action="served.retry").count() == 1


def test_a_file_waiting_for_its_reading_is_not_queued_twice(served, buyer):
    row, _ = served_upload(reservation=served, user=buyer.user, upload=upload("request_log.csv"))
    response = token_client(buyer.user).post(f"/api/v1/served/{row.pk}/retry/")
    assert response.status_code == 409
    assert response.json()["detail"] == "request_log.csv is already queued for reading."


def test_an_empty_file_or_a_long_label_is_named_and_nothing_is_stored(served, provider):
    client = token_client(provider.user)
    empty = _post(client, served, "request_log.csv", b"")
    assert empty.status_code == 400
    assert empty.json()["errors"]["file"] == [
        "request_log.csv: the file is empty; there is nothing to check."
    ]
    long = _post(client, served, "request_log.csv", label="x" * 121)
    assert long.status_code == 400
    assert long.json()["errors"]["label"] == ["Keep the label to 120 characters; it has 121."]
    assert not ServedResponsesFile.objects.exists()


def test_a_rival_provider_neither_reads_nor_uploads(served, provider, rival_provider):
    row, _ = served_upload(reservation=served, user=provider.user, upload=upload("request_log.csv"))
    rival = token_client(rival_provider.user)
    assert rival.get(f"/api/v1/served/{row.pk}/").status_code == 404
    assert rival.post(f"/api/v1/served/{row.pk}/retry/").status_code == 404
    assert rival.get(f"/api/v1/reservations/{served.pk}/inference/figures/").status_code == 404
    assert _post(rival, served, "vllm_bench_serve.json").status_code == 404
    assert ServedResponsesFile.objects.count() == 1


def test_the_list_does_not_grow_with_its_files(served, buyer, provider):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def add(first: int, n: int) -> None:
        for i in range(first, first + n):
            content = f"request_id,start,first_token,end,output_tokens,status\nr{i},,,,0,ok\n"
            served_upload(reservation=served, user=provider.user,
                          upload=upload("log.csv", content=content.encode()))  # fmt: skip

    client, url = token_client(buyer.user), f"/api/v1/reservations/{served.pk}/inference/"

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        return len(queries)

    add(0, 2)
    client.get(url)  # the token's first use is recorded once
    few = count()
    add(2, 20)
    assert count() == few
