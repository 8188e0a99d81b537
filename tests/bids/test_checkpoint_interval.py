"""The buyer states the job's real checkpoint interval on the request (optional): the page and
the API take it, refuse a slip by field, and show it back."""

from __future__ import annotations

import pytest
from django.urls import reverse

from bids.forms import CapacityRequestForm
from bids.models import CapacityRequest
from tests.api.v1.conftest import token_client
from tests.api.v1.test_api_rules import NEW_REQUEST
from tests.bids.test_form_bounds import request_data

pytestmark = pytest.mark.django_db


def data(**overrides):
    workload = {"checkpoint_write_seconds": 60, "restart_seconds": 300, "run_length_hours": 1000}
    return request_data(**workload, **overrides)


def test_the_request_page_takes_the_interval_and_shows_it(buyer):
    response = buyer.client().post(
        reverse("bids:request-create"), data(checkpoint_interval_minutes="60")
    )
    req = CapacityRequest.objects.get(title="16 × H200")
    assert response.status_code == 302
    assert req.checkpoint_interval_minutes == 60
    html = buyer.client().get(reverse("bids:request-detail", args=[req.pk])).content.decode()
    assert "every 60 min" in html


def test_an_empty_interval_means_the_optimum():
    form = CapacityRequestForm(data=data(checkpoint_interval_minutes=""))
    assert form.is_valid(), form.errors
    assert form.cleaned_data["checkpoint_interval_minutes"] is None


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("0", "At least 1 minute."),
        ("20000", "At most 10,080 minutes (a week)."),
    ],
)
def test_an_interval_out_of_range_is_refused_by_field_and_kept(buyer, typed, message):
    response = buyer.client().post(
        reverse("bids:request-create"), data(checkpoint_interval_minutes=typed)
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert message in html
    assert f'value="{typed}"' in html


def test_the_api_reads_and_writes_the_interval(buyer):
    client = token_client(buyer.user)
    created = client.post(
        "/api/v1/requests/", {**NEW_REQUEST, "checkpoint_interval_minutes": 45}, format="json"
    )
    assert created.status_code == 201, created.json()
    assert created.json()["checkpoint_interval_minutes"] == 45
    bad = client.post(
        "/api/v1/requests/", {**NEW_REQUEST, "checkpoint_interval_minutes": 0}, format="json"
    )
    assert bad.status_code == 400
    assert "checkpoint_interval_minutes" in str(bad.json())
