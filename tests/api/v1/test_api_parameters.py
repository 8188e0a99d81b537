"""List parameters say what they take, in the schema and in the answer: `ordering` is an enum
of the list's own names, pages are numbered from 1 and hold 1 to 200 rows, and anything else
is a 400 naming the parameter, never a silent default or a bare list."""

from __future__ import annotations

import pytest
from drf_spectacular.generators import SchemaGenerator

from tests.api.v1.conftest import token_client

pytestmark = pytest.mark.django_db

REQUESTS = "/api/v1/requests/"


@pytest.mark.parametrize("page", ["0", "-1", "abc", "1.5", "", "last", "null"])
def test_a_page_that_is_not_a_number_from_1_is_a_400_naming_it(buyer, page):
    response = token_client(buyer.user).get(REQUESTS, {"page": page})
    assert response.status_code == 400
    assert response.json()["errors"] == {
        "page": ["Pages are numbered from 1; give a whole number."]
    }


@pytest.mark.parametrize("size", ["0", "-19", "201", "null", "", "x"])
def test_a_page_size_outside_1_to_200_is_a_400_naming_it(buyer, size):
    response = token_client(buyer.user).get(REQUESTS, {"page_size": size})
    assert response.status_code == 400
    assert response.json()["errors"] == {
        "page_size": ["Give a whole number of rows per page from 1 to 200."]
    }


def test_every_page_is_the_paginated_shape_and_past_the_end_is_a_404(api_world, buyer):
    client = token_client(buyer.user)
    first = client.get(REQUESTS, {"page": "1", "page_size": "1"}).json()
    assert set(first) == {"count", "next", "previous", "results"} and len(first["results"]) == 1
    assert client.get(REQUESTS, {"page": "999"}).status_code == 404


@pytest.mark.parametrize("value", ["", "=½", "title,", "bogus", "-"])
def test_an_ordering_the_list_does_not_offer_is_a_400_naming_it(buyer, value):
    response = token_client(buyer.user).get(REQUESTS, {"ordering": value})
    assert response.status_code == 400
    assert "Order by one of: created_at, bid_deadline" in response.json()["errors"]["ordering"][0]


def test_an_empty_filter_that_is_not_text_is_a_400_naming_it(buyer):
    client = token_client(buyer.user)
    response = client.get(REQUESTS, {"deadline_before": "", "sealed": ""})
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"deadline_before", "sealed"}
    assert client.get(REQUESTS, {"title": ""}).status_code == 200  # text: empty matches all


def test_the_schema_states_the_orderings_and_the_page_bounds(db):
    schema = SchemaGenerator().get_schema(request=None, public=True)
    lists = 0
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            parameters = {p["name"]: p for p in operation.get("parameters", [])}
            if method != "get":
                assert not {"ordering", "page", "page_size"} & set(parameters), (method, path)
                continue
            if "ordering" in parameters:
                lists += 1
                ordering = parameters["ordering"]
                names = ordering["schema"]["items"]["enum"]
                assert names and all(f"-{n}" in names for n in names if not n.startswith("-"))
                assert (ordering["style"], ordering["explode"]) == ("form", False)
            if "page" in parameters:
                assert parameters["page"]["schema"]["minimum"] == 1
            if "page_size" in parameters:
                assert parameters["page_size"]["schema"] == {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 200,
                }
    assert lists >= 19


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/api/v1/notices/", "unread"),
        (REQUESTS, "sealed"),
        ("/api/v1/reservations/{reservation}/incidents/", "open"),
    ],
)
@pytest.mark.parametrize("word", ["null", "yes", "none"])
def test_a_yes_no_filter_given_another_word_is_a_400_naming_it(api_world, buyer, path, name, word):
    """django-filter reads any other word as "not asked" and lists everything unfiltered."""
    client = token_client(buyer.user)
    url = path.format(reservation=api_world.reservation.pk)
    response = client.get(url, {name: word})
    assert response.status_code == 400
    assert response.json()["errors"] == {name: ["Give true or false, or leave the parameter out."]}
    assert client.get(url, {name: "true"}).status_code == 200
    assert client.get(url, {name: "False"}).status_code == 200


def test_comparison_labels_other_than_anonymous_is_a_400_naming_it(api_world, buyer, outsider):
    client = token_client(buyer.user)
    url = f"/api/v1/requests/{api_world.awarded.pk}/comparison/"
    response = client.get(url, {"labels": "AAA"})
    assert response.status_code == 400
    assert response.json()["errors"] == {
        "labels": ["Give 'anonymous', or leave it out for names, not 'AAA'."]
    }
    assert client.get(url, {"labels": "anonymous"}).status_code == 200
    assert token_client(outsider.user).get(url, {"labels": "AAA"}).status_code == 404


@pytest.mark.parametrize("number", ["1.5", "-3.1862777424110405e-182", "0"])
def test_a_revision_number_filter_that_is_not_a_whole_number_from_1_is_a_400(
    api_world, provider, number
):
    client = token_client(provider.user)
    url = f"/api/v1/bids/{api_world.bid.pk}/revisions/"
    response = client.get(url, {"number": number})
    assert response.status_code == 400 and list(response.json()["errors"]) == ["number"]
    assert client.get(url, {"number": "1"}).json()["count"] == 1
