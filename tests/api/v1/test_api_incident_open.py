"""Opening an incident from a party's own signal by API: POST to the reservation's incidents;
a bad field comes back named, and the incident is the one the page would show."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from incidents.models import Incident
from tests.api.v1.conftest import token_client
from tests.incidents.helpers import accepted, term_from

__all__ = ["accepted"]
pytestmark = pytest.mark.django_db

BODY = {
    "severity": "S3",
    "signal": "drained-node",
    "nodes": ["gpu-a02"],
    "window_start": "2026-11-04T10:00:00Z",
    "summary": "gpu-a02 drained for ECC errors; the job runs on one node.",
}


def test_the_provider_opens_an_s3_from_a_drained_node(accepted, buyer, provider):
    term_from(accepted.reservation, datetime(2026, 11, 1, tzinfo=UTC))  # 4 Nov lies inside it
    url = f"/api/v1/reservations/{accepted.reservation.pk}/incidents/"
    opened = token_client(provider.user).post(url, BODY, format="json")
    assert opened.status_code == 201, opened.content
    body = opened.json()
    assert (body["severity"], body["signal"], body["opened_by_party"]) == (
        "S3", "drained-node", "provider"
    )  # fmt: skip
    assert body["nodes"] == ["gpu-a02"] and body["window_start"].startswith("2026-11-04T10:00")
    listed = token_client(buyer.user).get(url).json()["results"]
    assert [i["id"] for i in listed] == [body["id"]]


def test_the_buyer_is_refused_the_providers_signal_and_duplicate_nodes(accepted, buyer):
    url = f"/api/v1/reservations/{accepted.reservation.pk}/incidents/"
    alice = token_client(buyer.user)
    refused = alice.post(url, BODY, format="json")
    assert refused.status_code == 400 and "The buyer opens from" in str(refused.json())
    twice = alice.post(
        url, {**BODY, "signal": "slow-job", "nodes": ["gpu-a02", "gpu-a02"]}, format="json"
    )
    assert twice.status_code == 400 and "gpu-a02 is named twice." in str(twice.json())
    assert not Incident.objects.exists()
