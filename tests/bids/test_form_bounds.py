"""Counts outside what any cluster has are refused with one message per field, the same
whichever side of the range the slip is on, in the page and in the API."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from bids.forms import BidForm, CapacityRequestForm
from core.limits import TEXT_LIMIT
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory

pytestmark = pytest.mark.django_db


def request_data(**overrides):
    start = timezone.localdate() + timedelta(days=60)
    data = {
        "title": "16 × H200", "gpu_model": "H200", "gpu_count": 16, "nodes": 2,
        "gpus_per_node": 8, "nvlink_domain_size": 8, "fabric": "infiniband",
        "per_gpu_bandwidth_gbps": 400, "accepted_offer_kinds": ["whole_device"],
        "scheduler": "slurm",
        "acceptable_regions": ["eu"], "reservation_start": start,
        "reservation_end": start + timedelta(days=90),
        "bid_deadline": (timezone.now() + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M"),
    }  # fmt: skip
    data.update(overrides)
    return data


@pytest.mark.parametrize("typed", ["-16", "0"])
def test_a_gpu_count_below_one_reads_the_same_either_way(typed):
    form = CapacityRequestForm(data=request_data(gpu_count=typed))
    assert form.errors["gpu_count"] == ["At least 1 GPU."]
    assert form["gpu_count"].field.widget.attrs["min"] == "1"


def test_the_request_page_keeps_the_slip_and_names_the_field(buyer):
    response = buyer.client().post(reverse("bids:request-create"), request_data(nodes="-2"))
    html = response.content.decode()
    assert response.status_code == 200
    assert "At least 1 node." in html
    assert 'value="-2"' in html  # what was typed stays in the box


def test_a_million_spare_nodes_is_refused():
    bid = BidFactory.build(request=CapacityRequestFactory())
    form = BidForm(data={"spares_count": "1000000"}, instance=bid)
    assert form.errors["spares_count"] == ["At most 1,024 spare nodes."]
    assert form["spares_count"].field.widget.attrs["max"] == "1024"


def test_the_api_refuses_the_same_slip_by_field(provider):
    from tests.api.v1.conftest import token_client

    req = CapacityRequestFactory(status="open")
    InvitationFactory(request=req, provider=provider.org)
    bid = BidFactory(request=req, provider=provider.org)
    response = token_client(provider.user).patch(
        f"/api/v1/bids/{bid.pk}/", {"spares_count": 1_000_000}, format="json"
    )
    assert response.status_code == 400
    body = str(response.json())
    assert response.json()["errors"]["spares_count"] == ["At most 1,024 spare nodes."], body


HUGE = "99999999999999999999"  # past any database's integer range
# Each workload count a request states, with its bound in the domain's words.
WORKLOAD_BOUNDS = {
    "gpu_count": "At most 262,144 GPUs.",
    "nodes": "At most 32,768 nodes.",
    "gpus_per_node": "At most 72 GPUs per node (an NVL72 rack).",
    "nvlink_domain_size": "At most 576 GPUs in one NVLink domain (NVL576).",
    "per_gpu_bandwidth_gbps": "At most 1,600 Gb/s (1.6 Tb/s).",
    "max_leaf_switches": "At most 4,096 leaf switches.",
    "checkpoint_write_seconds": "At most 86,400 seconds (a day).",
    "checkpoint_interval_minutes": "At most 10,080 minutes (a week).",
    "restart_seconds": "At most 86,400 seconds (a day).",
    "run_length_hours": "At most 87,600 hours (ten years).",
}


@pytest.mark.parametrize("field", sorted(WORKLOAD_BOUNDS))
def test_a_huge_workload_number_is_refused_in_the_domains_words(field):
    form = CapacityRequestForm(data=request_data(**{field: HUGE}))
    assert form.errors[field] == [WORKLOAD_BOUNDS[field]]
    limit = WORKLOAD_BOUNDS[field].split()[2].replace(",", "")
    assert form[field].field.widget.attrs["max"] == limit


def test_the_request_page_and_the_api_say_the_same_bounds(buyer):
    from tests.api.v1.conftest import token_client

    huge = dict.fromkeys(WORKLOAD_BOUNDS, HUGE)
    response = buyer.client().post(reverse("bids:request-create"), request_data(**huge))
    html = response.content.decode()
    assert response.status_code == 200
    assert "9223372036854775807" not in html and "2147483647" not in html
    for words in WORKLOAD_BOUNDS.values():
        assert words in html
    assert f'value="{HUGE}"' in html  # what was typed stays in the box
    api = token_client(buyer.user).post(
        "/api/v1/requests/",
        {**request_data(), **dict.fromkeys(WORKLOAD_BOUNDS, int(HUGE))},
        format="json",
    )
    assert api.status_code == 400
    errors = api.json()["errors"]
    assert {field: errors[field] for field in WORKLOAD_BOUNDS} == {
        field: [words] for field, words in WORKLOAD_BOUNDS.items()
    }


def test_a_description_over_the_limit_is_too_long_in_words_and_kept(buyer):
    """GIVEN a description one character over the limit THEN the page says it is too long,
    with both numbers, in the product's words, and what was typed stays in the form."""
    typed = "x" * (TEXT_LIMIT + 1)
    response = buyer.client().post(
        reverse("bids:request-create"), request_data(title="Kept title", description=typed)
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert f"Too long: at most {TEXT_LIMIT} characters (this has {TEXT_LIMIT + 1})." in html
    assert 'value="Kept title"' in html and typed in html
    assert f'maxlength="{TEXT_LIMIT}"' in html


def test_the_api_says_too_long_in_the_same_words(provider):
    from tests.api.v1.conftest import token_client

    req = CapacityRequestFactory(status="open")
    InvitationFactory(request=req, provider=provider.org)
    bid = BidFactory(request=req, provider=provider.org)
    response = token_client(provider.user).patch(
        f"/api/v1/bids/{bid.pk}/", {"notes": "y" * (TEXT_LIMIT + 1)}, format="json"
    )
    assert response.status_code == 400
    assert f"Too long: at most {TEXT_LIMIT} characters." in str(response.json())


@pytest.mark.parametrize("year", ["0001", "9999"])
def test_a_year_far_outside_any_reservation_is_refused(year):
    form = CapacityRequestForm(data=request_data(reservation_start=f"{year}-01-10"))
    assert not form.is_valid()
    assert f"Check the year: {year} is outside 2000–2100." in form.errors["reservation_start"]


def test_a_body_over_the_upload_limit_is_too_large_not_a_host_puzzle(buyer, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024
    response = buyer.client().post(
        reverse("bids:request-create"), request_data(description="z" * (128 * 1024))
    )
    html = response.content.decode()
    assert response.status_code == 413
    assert "Too large: one form or request may carry at most 64 KiB" in html
    assert "ALLOWED_HOSTS" not in html


def test_a_count_below_its_floor_reads_the_same_on_the_page_and_the_api(buyer):
    from tests.api.v1.conftest import token_client

    below = {"gpu_count": "0", "nodes": "-2", "checkpoint_interval_minutes": "0"}
    words = {"gpu_count": "At least 1 GPU.", "nodes": "At least 1 node."}
    words["checkpoint_interval_minutes"] = "At least 1 minute."
    html = buyer.client().post(reverse("bids:request-create"), request_data(**below))
    page = html.content.decode()
    assert "greater than or equal to" not in page
    assert all(w in page for w in words.values())
    api = token_client(buyer.user).post(
        "/api/v1/requests/",
        {**request_data(), **{k: int(v) for k, v in below.items()}},
        format="json",
    )
    assert api.status_code == 400
    assert {f: api.json()["errors"][f] for f in words} == {f: [w] for f, w in words.items()}
