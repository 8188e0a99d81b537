"""Both parties upload served responses on an accepted reservation and read TTFT, inter-token
latency and cost per response against the offer's promise; bad files say file and line."""

from __future__ import annotations

import pytest
from django.urls import reverse

from audit.models import AuditEntry
from inference.models import ServedResponsesFile, ServedState
from tests.inference.helpers import DATA, upload

pytestmark = pytest.mark.django_db


def _post(client, reservation, name, *, content=None, label="", capture=None):
    url = reverse("inference:served-list", args=[reservation.pk])
    with capture(execute=True):
        return client.post(url, {"file": upload(name, content=content), "label": label})


def test_the_provider_uploads_and_the_buyer_reads_the_figures_against_the_promise(
    served, provider, buyer, django_capture_on_commit_callbacks
):
    response = _post(
        provider.client(), served, "vllm_bench_serve.json", label="Chat traffic, 30 Nov",
        capture=django_capture_on_commit_callbacks,
    )  # fmt: skip
    row = ServedResponsesFile.objects.get()
    assert response.status_code == 302 and row.state == ServedState.PARSED
    assert (row.party, row.kind) == ("provider", "vllm_bench")
    html = buyer.client().get(reverse("inference:served-list", args=[served.pk])).content.decode()
    assert "Chat traffic, 30 Nov" in html
    for figure in ("150 ms", "400 ms", "25 ms", "60 ms", "$0.016000", "$0.020000", "$4,210.53"):
        assert figure in html, figure
    assert "4 of 5 served responses" in html
    assert html.count("status-fail") == 4 and html.count("status-pass") == 2


def test_the_buyer_may_upload_its_own_log(served, buyer, django_capture_on_commit_callbacks):
    _post(buyer.client(), served, "request_log.csv", capture=django_capture_on_commit_callbacks)
    row = ServedResponsesFile.objects.get()
    assert (row.party, row.outcome["ttft_p50_ms"], row.outcome["ttft_p95_ms"]) == (
        "buyer",
        90.0,
        150.0,
    )
    assert row.outcome["cost_per_response"] == "0.007600"


def test_a_bad_file_is_kept_with_its_line_and_can_be_read_again(
    served, provider, django_capture_on_commit_callbacks
):
    broken = (DATA / "request_log.csv").read_bytes().replace(b"10:00:00.250Z", b"soon")
    _post(provider.client(), served, "request_log.csv", content=broken,
          capture=django_capture_on_commit_callbacks)  # fmt: skip
    row = ServedResponsesFile.objects.get()
    assert (row.state, row.error_line) == (ServedState.UNREADABLE, 3)
    detail = provider.client().get(reverse("inference:served-detail", args=[row.pk]))
    assert "request_log.csv, line 3: first_token is" in detail.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        provider.client().post(reverse("inference:served-retry", args=[row.pk]))
    row.refresh_from_db()
    assert (row.state, row.attempts) == (ServedState.UNREADABLE, 2)
    assert AuditEntry.objects.filter(action="served.retry").count() == 1


def test_an_empty_upload_keeps_the_label_typed(served, provider):
    url = reverse("inference:served-list", args=[served.pk])
    response = provider.client().post(url, {"label": "Evening peak"})
    assert response.status_code == 400
    html = response.content.decode()
    assert 'value="Evening peak"' in html and "This field is required" in html


def test_the_same_file_twice_is_stored_once(
    served, provider, buyer, django_capture_on_commit_callbacks
):
    _post(provider.client(), served, "vllm_bench_serve.json",
          capture=django_capture_on_commit_callbacks)  # fmt: skip
    _post(buyer.client(), served, "vllm_bench_serve.json",
          capture=django_capture_on_commit_callbacks)  # fmt: skip
    assert ServedResponsesFile.objects.count() == 1
    assert AuditEntry.objects.filter(action="served.upload").count() == 1


def test_the_upload_is_on_the_record_for_both_parties(
    served, provider, django_capture_on_commit_callbacks
):
    _post(provider.client(), served, "vllm_bench_serve.json",
          capture=django_capture_on_commit_callbacks)  # fmt: skip
    entry = AuditEntry.objects.get(action="served.upload")
    assert entry.party == "provider" and entry.after["file"] == "vllm_bench_serve.json"
    assert (entry.buyer_org_id, entry.provider_org_id) == (
        served.request.buyer_id,
        served.bid.provider_id,
    )


def test_a_pending_reservation_serves_nothing_yet(served, provider):
    served.status = "pending"
    served.save(update_fields=["status"])
    url = reverse("inference:served-list", args=[served.pk])
    html = provider.client().get(url).content.decode()
    assert 'id="served-refused"' in html
    response = provider.client().post(url, {"file": upload("request_log.csv")})
    assert response.status_code == 400 and not ServedResponsesFile.objects.exists()


def test_the_reservation_page_links_to_the_inference_page(served, buyer):
    html = buyer.client().get(reverse("burnin:reservation-detail", args=[served.pk])).content
    assert reverse("inference:served-list", args=[served.pk]).encode() in html
