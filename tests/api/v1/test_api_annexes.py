"""Annexes from a script: generate, poll the job, download the PDF."""

from __future__ import annotations

from tests.api.v1.conftest import token_client


def test_generate_poll_and_download_the_contract_annex(
    api_world, provider, django_capture_on_commit_callbacks
):
    client = token_client(provider.user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/api/v1/requests/{api_world.awarded.pk}/annexes/",
            {"kind": "contract"},
            format="json",
        )
    assert response.status_code == 202, response.content
    job = client.get(response.json()["status_url"]).json()
    assert job["status"] == "done", job
    assert job["annex"]["version"] == 2  # the world already holds a version 1
    pdf = client.get(job["annex"]["download_url"])
    assert pdf.status_code == 200
    assert b"".join(pdf.streaming_content).startswith(b"%PDF")


def test_the_provider_cannot_ask_for_the_buyers_comparison(api_world, provider):
    client = token_client(provider.user)
    response = client.post(
        f"/api/v1/requests/{api_world.awarded.pk}/annexes/", {"kind": "comparison"}, format="json"
    )
    assert response.status_code == 404


def test_nothing_to_render_is_a_400_with_the_reason(api_world, buyer):
    client = token_client(buyer.user)
    response = client.post(
        f"/api/v1/requests/{api_world.request.pk}/annexes/", {"kind": "contract"}, format="json"
    )
    assert response.status_code == 400
    assert "no awarded bid" in response.json()["detail"]
