"""The curl path: multipart upload with `Authorization: Token …`, then states and checks."""

from __future__ import annotations

import gzip

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from api.services import token_create
from tests.acceptance.burnin.helpers import DATA, GOOD_SET, file_upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def curl(provider):
    _, secret = token_create(user=provider.user, name="cluster")
    return Client(HTTP_AUTHORIZATION=f"Token {secret}")


def _url(awarded):
    return reverse("api:run-evidence", args=[awarded.run.pk])


def test_upload_one_file_like_curl(awarded, curl, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = curl.post(
            _url(awarded),
            {
                "file": file_upload("burnin/nccl-tests/all_reduce_2node_pass.txt"),
                "node": "gpu-a01+gpu-a02",
            },
        )
    assert response.status_code == 201, response.content
    (stored,) = response.json()["files"]
    evidence = awarded.run.evidence.get()
    assert stored["id"] == evidence.pk and stored["sha256"] == evidence.sha256
    assert stored["state"] == "queued" and stored["duplicate"] is False
    assert stored["node"] == "gpu-a01+gpu-a02"
    evidence.refresh_from_db()
    assert evidence.state == "parsed" and evidence.uploaded_by.username == "nora"


def test_a_gzipped_log_is_checked_as_the_text_inside_and_its_lines_read_unpacked(
    awarded, curl, provider, django_capture_on_commit_callbacks
):
    name = "burnin/nccl-tests/all_reduce_2node_pass.txt"
    packed = gzip.compress((DATA / name).read_bytes())
    upload = SimpleUploadedFile("all_reduce.log.gz", packed, content_type="application/gzip")
    with django_capture_on_commit_callbacks(execute=True):
        response = curl.post(_url(awarded), {"file": upload, "node": "gpu-a01+gpu-a02"})
    assert response.status_code == 201, response.content
    evidence = awarded.run.evidence.get()
    assert (evidence.state, evidence.kind) == ("parsed", "nccl-tests")
    browser = Client()
    browser.force_login(provider.user)
    lines = browser.get(reverse("burnin:evidence-download", args=[evidence.pk]), {"line": "1"})
    assert lines.status_code == 200
    assert "nThread" in lines.content.decode()


def test_upload_many_then_read_states_and_checks(awarded, curl, django_capture_on_commit_callbacks):
    for node in ("", "gpu-a01", "gpu-a02"):
        files = [file_upload(name) for name, n in GOOD_SET if n == node]
        with django_capture_on_commit_callbacks(execute=True):
            response = curl.post(_url(awarded), {"file": files, "node": node})
        assert response.status_code == 201
        assert len(response.json()["files"]) == len(files)
    body = curl.get(_url(awarded)).json()
    assert body["checks_current"] is True and body["gate"]["passed"] is True
    assert {e["state"] for e in body["results"]} == {"parsed"}
    assert body["checks"] and all("status" in c for c in body["checks"])


def test_a_duplicate_says_already_uploaded(awarded, curl):
    curl.post(_url(awarded), {"file": file_upload("burnin/fixture-result/fixture_16ranks.jsonl")})
    again = curl.post(
        _url(awarded), {"file": file_upload("burnin/fixture-result/fixture_16ranks.jsonl")}
    )
    assert again.status_code == 200
    (body,) = again.json()["files"]
    assert body["duplicate"] is True
    assert body["message"].startswith("already uploaded as fixture_16ranks.jsonl")


def test_one_refused_file_fails_the_batch_but_lists_what_was_stored(awarded, curl, settings):
    """`curl --fail` must notice a refused file even when the rest of the batch was stored."""
    settings.EVIDENCE_MAX_BYTES = 6000
    response = curl.post(
        _url(awarded),
        {
            "file": [
                file_upload("big.log", b"x" * 9000),
                file_upload("empty.log", b""),
                file_upload("junk.bin", b"\x00\x01"),
            ]
        },
    )
    assert response.status_code == 400
    body = response.json()
    assert body["detail"] == "2 of 3 files were refused; the others were stored."
    big, empty, junk = body["files"]
    assert "limit" in big["error"] and "empty" in empty["error"]
    assert [e.split(":")[0] for e in body["errors"]["file"]] == ["big.log", "empty.log"]
    assert junk["state"] == "queued" and junk["id"] == awarded.run.evidence.get().pk


def test_no_file_is_a_400(awarded, curl):
    response = curl.post(_url(awarded), {"node": "gpu-a01"})
    assert response.status_code == 400
    assert set(response.json()) == {"detail", "errors"} and "file" in response.json()["errors"]


def test_every_file_refused_is_a_400_in_the_error_shape(awarded, curl, settings):
    settings.EVIDENCE_MAX_BYTES = 10
    response = curl.post(_url(awarded), {"file": file_upload("big.log", b"x" * 90)})
    assert response.status_code == 400
    body = response.json()
    assert body["detail"] == "No file was stored."
    assert body["errors"]["file"][0].startswith("big.log: ")
    assert body["files"][0]["name"] == "big.log"


def test_a_retried_upload_with_its_key_replays(awarded, curl):
    data = {"file": file_upload("burnin/fixture-result/fixture_16ranks.jsonl")}
    first = curl.post(_url(awarded), data, HTTP_IDEMPOTENCY_KEY="up-1")
    data = {"file": file_upload("burnin/fixture-result/fixture_16ranks.jsonl")}
    again = curl.post(_url(awarded), data, HTTP_IDEMPOTENCY_KEY="up-1")
    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true" and again.json() == first.json()
    other = curl.post(
        _url(awarded), {"file": file_upload("x.log", b"other")}, HTTP_IDEMPOTENCY_KEY="up-1"
    )
    assert other.status_code == 422
    assert awarded.run.evidence.count() == 1


def test_a_rival_token_sees_nothing(awarded, rival_provider):
    _, secret = token_create(user=rival_provider.user, name="rival")
    client = Client(HTTP_AUTHORIZATION=f"Token {secret}")
    assert client.get(_url(awarded)).status_code == 404
    response = client.post(
        _url(awarded), {"file": file_upload("burnin/fixture-result/fixture_16ranks.jsonl")}
    )
    assert response.status_code == 404
    assert awarded.run.evidence.count() == 0


def test_an_oversized_body_is_refused_from_its_length_before_it_is_read(awarded, curl, provider):
    from acceptance.models import Evidence
    from core.middleware import LARGE_UPLOAD_ROUTES, body_limit

    eighty_mb = str(80 * 1024 * 1024)
    api = curl.post(_url(awarded), {"file": file_upload(GOOD_SET[1][0])}, CONTENT_LENGTH=eighty_mb)
    assert api.status_code == 413 and "takes at most 51 MiB" in api.json()["detail"]
    page = provider.client().post(
        reverse("burnin:run-upload", args=[awarded.run.pk]),
        {"files": file_upload(GOOD_SET[1][0])},
        CONTENT_LENGTH=eighty_mb,
    )
    assert page.status_code == 413 and 'id="too-large"' in page.content.decode()
    assert not Evidence.objects.exists()
    # A whole failed run may be far larger.
    assert all(body_limit(r) > 1024**3 for r in LARGE_UPLOAD_ROUTES)


def test_the_run_page_shows_the_provider_the_curl_recipe_for_this_run(awarded, provider):
    """The recipe is the API's (it names the API's URLs): it registers itself on the run's page,
    which knows nothing of the API."""
    page = provider.client().get(reverse("burnin:run-detail", args=[awarded.run.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Upload from the cluster with <code>curl</code>" in html
    assert f"http://testserver{_url(awarded)}" in html
    assert reverse("api:token-list") in html
