"""The outcome report of an inference reservation (docs/inference-outcomes.md's worked
example), read back from the PDF bytes: the promised envelope against each served-responses
file, and a diagnostic packet per missed inference promise naming the requests behind it."""

from __future__ import annotations

from typing import Any

import pytest

from inference.services import served_upload
from tests.annexes.test_outcome_report import _report, _text
from tests.inference.helpers import inference_reservation, upload
from tests.observed.helpers import upload_worked_example, worked_reservation

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings: Any, tmp_path: Any) -> None:
    settings.MEDIA_ROOT = tmp_path / "media"


def test_the_report_sets_each_served_file_against_the_promise(
    buyer, provider, django_capture_on_commit_callbacks
):
    reservation = inference_reservation(buyer, provider)
    with django_capture_on_commit_callbacks(execute=True):
        served_upload(
            reservation=reservation,
            user=provider.user,
            upload=upload("vllm_bench_serve.json"),
            label="chat, concurrency 4",
        )
        served_upload(reservation=reservation, user=buyer.user, upload=upload("request_log.csv"))
    text = _text(_report(reservation, buyer.user))
    assert "Inference: served responses against the promise" in text
    assert "Served responses: vllm_bench_serve.json" in text and "chat, concurrency 4" in text
    assert "Time to first token, p50 120 ms 150 ms missed" in text
    assert "Time to first token, p95 300 ms 400 ms missed" in text
    assert "Inter-token latency, p50 30 ms 25 ms met" in text
    assert "Output throughput 8 tokens/s 9.5 tokens/s met" in text
    assert "Cost per million output tokens $900.00 $4,210.53 missed" in text
    assert "Responses within the promise 4 of 5 served (1 failed)" in text
    assert "Cost per response $0.016000" in text
    # The log: at most 3 in flight against the promised 4, and its one miss (ITL p50 35 > 30).
    assert "Measured at a concurrency of 3; the promise holds at 4" in text
    assert "Inter-token latency, p50 30 ms 35 ms missed" in text


def test_each_missed_inference_promise_has_its_packet(
    buyer, provider, django_capture_on_commit_callbacks
):
    reservation = inference_reservation(buyer, provider)
    with django_capture_on_commit_callbacks(execute=True):
        served_upload(reservation=reservation, user=buyer.user, upload=upload("request_log.csv"))
    text = _text(_report(reservation, provider.user))
    assert "Missed inference promises: diagnostic packets" in text
    assert "Inference miss 1: Inter-token latency, p50" in text
    assert "2 served responses had a mean token gap over the promise" in text
    # The lines of the log behind the miss, worst first: req-2 (50 ms), then req-3 (40 ms).
    assert "line 3 (request_log.csv) req-2 150 ms 50 ms 9" in text
    assert "line 4 (request_log.csv) req-3 100 ms 40 ms 5" in text
    assert text.index("req-2 150 ms") < text.index("req-3 100 ms")
    assert "Inference miss 2" not in text


def test_a_reservation_without_served_files_has_no_inference_section(
    buyer, provider, django_capture_on_commit_callbacks
):
    reservation = worked_reservation(buyer, provider)
    upload_worked_example(reservation, buyer, provider, django_capture_on_commit_callbacks)
    text = _text(_report(reservation, buyer.user))
    assert "Miss 1: Time to running (p95)" in text
    assert "Inference" not in text


def test_a_served_file_whose_bytes_are_gone_keeps_its_figures_and_says_so(
    buyer, provider, django_capture_on_commit_callbacks
):
    reservation = inference_reservation(buyer, provider)
    with django_capture_on_commit_callbacks(execute=True):
        row, _ = served_upload(
            reservation=reservation, user=buyer.user, upload=upload("request_log.csv")
        )
    row.file.storage.delete(row.file.name)
    text = _text(_report(reservation, buyer.user))
    assert "Inter-token latency, p50 30 ms 35 ms missed" in text  # the stored reading
    # Its miss still has a packet, saying why it names no request.
    assert "Inference miss 1: Inter-token latency, p50" in text
    assert "Behind it Cannot open the file" in text
    assert "the requests behind it" not in text
