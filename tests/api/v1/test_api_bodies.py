"""Request bodies say what they take: a body with a required field is itself required, a body a
form cannot hold (null, a nested object) is documented as JSON only, and an id that must name
an object of this one says so (a 400 naming the field, stated in the operation's description),
while an id the caller may not see is a 404 as on GET."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator

from bids.services import bid_submit
from incidents.lifecycle import item_owner
from tests.acceptance.burnin.helpers import award
from tests.api.v1.conftest import token_client
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory

pytestmark = pytest.mark.django_db

FORMS = {"application/x-www-form-urlencoded", "multipart/form-data"}


@pytest.fixture
def schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


def _body(schema: dict[str, Any], path: str, method: str) -> dict[str, Any]:
    return schema["paths"][f"/api/v1{path}"][method]["requestBody"]


def _enum(schema: dict[str, Any], prop: dict[str, Any]) -> list[str]:
    """The property's enum, wherever drf-spectacular put it (inline, `$ref` or `allOf`)."""
    ref = prop.get("$ref") or (prop.get("allOf") or [{}])[0].get("$ref")
    named = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]] if ref else prop
    return list(named["enum"])


def test_a_body_whose_schema_requires_a_field_is_required(schema, api_world, buyer):
    """`confirm` must be true: a call without any body is not a valid call."""
    for path in ("/incidents/{id}/close/", "/requests/{id}/cancel/", "/requests/{id}/reopen/"):
        assert _body(schema, path, "post").get("required") is True, path
    sent = token_client(buyer.user).post(f"/api/v1/incidents/{api_world.incident.pk}/close/")
    assert sent.status_code == 400 and list(sent.json()["errors"]) == ["confirm"]


def test_a_body_a_form_cannot_hold_is_documented_as_json_only(schema, api_world, buyer):
    marks = _body(schema, "/incidents/{id}/", "patch")  # `failed_at` may be null
    assert set(marks["content"]) == {"application/json"}
    fixture = _body(schema, "/requests/{id}/fixture/", "patch")  # `changes` is an object
    assert set(fixture["content"]) == {"application/json"}
    # A flat body keeps its forms, and an upload its multipart.
    assert set(_body(schema, "/reservations/{id}/accept/", "post")["content"]) >= FORMS
    assert "multipart/form-data" in _body(schema, "/reservations/{id}/usage/", "post")["content"]
    sent = token_client(buyer.user).patch(
        f"/api/v1/incidents/{api_world.incident.pk}/", {"failed_at": None}, format="json"
    )
    assert sent.status_code == 200, sent.json()


def test_an_estimate_states_its_choices_and_needs_an_eta(schema, api_world, provider):
    """The service words a wrong class, confidence or ETA; the schema says what it takes."""
    body = _body(schema, "/incidents/{id}/estimates/", "post")
    written = schema["components"]["schemas"][
        body["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    ]
    assert _enum(schema, written["properties"]["confidence"]) == ["low", "medium", "high"]
    assert "unknown" in _enum(schema, written["properties"]["cause_class"])
    assert "nullable" not in written["properties"]["eta"]
    assert set(written["required"]) >= {"cause_class", "confidence", "eta"}
    sent = token_client(provider.user).post(
        f"/api/v1/incidents/{api_world.incident.pk}/estimates/",
        {"cause_class": "gpu", "eta": None, "confidence": "low"},
        format="json",
    )
    assert sent.status_code == 400 and list(sent.json()["errors"]) == ["eta"]


def test_marking_twice_or_disputing_an_unsigned_item_is_a_409(api_world, buyer, provider):
    """Refusals by the incident's state, not by what the call sent."""
    url = f"/api/v1/incidents/{api_world.incident.pk}/"
    nora, alice = token_client(provider.user), token_client(buyer.user)
    assert nora.post(url + "responded/").status_code == 200
    twice = nora.post(url + "responded/")
    assert twice.status_code == 409 and twice.json()["detail"] == "Responded is already recorded."
    item = next(i for i in alice.get(url).json()["checklist"] if i["signable"])
    disputer = alice if item_owner(item["key"]) == "provider" else nora
    early = disputer.post(
        url + "signoff-disputes/", {"key": item["key"], "reason": "Not so."}, format="json"
    )
    assert early.status_code == 409
    assert early.json()["detail"] == "Only a signed-off item can be disputed."
    unknown = nora.post(url + "signoff-disputes/", {"key": "nope", "reason": "No."}, format="json")
    assert unknown.status_code == 400
    assert unknown.json()["errors"] == {"key": ["That item is not on this incident's checklist."]}


def test_accepting_on_a_run_of_another_reservation_is_a_400_naming_run(schema, api_world, buyer):
    operation = schema["paths"]["/api/v1/reservations/{id}/accept/"]["post"]
    assert "unless `run` is a burn-in run of this reservation" in operation["description"]
    other_run = api_world.incident.reservation.runs.first()
    sent = token_client(buyer.user).post(
        f"/api/v1/reservations/{api_world.reservation.pk}/accept/",
        {"run": other_run.pk},
        format="json",
    )
    assert sent.status_code == 400
    assert sent.json()["errors"] == {"run": ["That run belongs to another reservation."]}


def test_a_run_of_another_buyers_reservation_is_a_404_not_a_hint(
    api_world, buyer, provider, outsider
):
    """The provider works for both buyers: its other customer's run ids are none of ours."""
    theirs = CapacityRequestFactory(buyer=outsider.org, sealed=False, title="Their request")
    InvitationFactory(request=theirs, provider=provider.org)
    bid = BidFactory(request=theirs, provider=provider.org)
    bid_submit(bid=bid, user=provider.user)
    world = SimpleNamespace(request=theirs, bid=bid, rival_bid=bid)
    their_run = award(world, outsider).run
    client = token_client(buyer.user)
    for move, body in (
        ("accept", {"run": their_run.pk}),
        ("override", {"run": their_run.pk, "reason": "", "waived": []}),
    ):
        sent = client.post(
            f"/api/v1/reservations/{api_world.reservation.pk}/{move}/", body, format="json"
        )
        assert sent.status_code == 404, (move, sent.json())


def test_a_bid_read_back_may_have_no_gpu_model_yet(schema, api_world, provider):
    """A draft's `gpu_model` is blank until chosen: the read schema says so, as it reads."""
    read = schema["components"]["schemas"]["Bid"]["properties"]["gpu_model"]
    refs = {option["$ref"].rsplit("/", 1)[-1] for option in read["oneOf"]}
    assert refs == {"GpuModelEnum", "BlankEnum"}
    api_world.bid.gpu_model = ""
    api_world.bid.save(update_fields=["gpu_model"])
    sent = token_client(provider.user).get(f"/api/v1/bids/{api_world.bid.pk}/")
    assert sent.status_code == 200 and sent.json()["gpu_model"] == ""


@pytest.mark.parametrize("sent", [0, 1, 0.0])
def test_a_yes_no_sent_as_a_json_number_is_a_400_naming_it(api_world, buyer, sent):
    """DRF reads 0 and 1 as false and true; the schema says `boolean`."""
    client = token_client(buyer.user)
    url = f"/api/v1/requests/{api_world.pilot.bid.request_id}/pilot-scoring/"
    response = client.put(url, {"use_verified": sent}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"] == {"use_verified": ["Must be a valid boolean."]}
    assert client.put(url, {"use_verified": True}, format="json").status_code == 200


def test_a_fixture_change_states_its_rule_and_takes_no_null(schema, api_world, buyer):
    operation = schema["paths"]["/api/v1/requests/{id}/fixture/"]["patch"]
    assert "each key of `changes` is a dotted path of the fixture spec" in operation["description"]
    changes = schema["components"]["schemas"]["PatchedFixtureChangeRequest"]["properties"]
    assert {"nullable"} & set(changes["changes"]["additionalProperties"]) == set()
    sent = token_client(buyer.user).patch(
        f"/api/v1/requests/{api_world.request.pk}/fixture/",
        {"changes": {"tests.nccl_tests.iterations": None}},
        format="json",
    )
    assert sent.status_code == 400
    assert list(sent.json()["errors"]) == ["changes.tests.nccl_tests.iterations"]


@pytest.mark.parametrize(("field", "sent"), [("sealed", 1), ("single_fabric_domain", 0)])
def test_a_request_edit_refuses_a_yes_no_sent_as_a_number(buyer, field, sent):
    """Model serializers that write read yes/nos strictly, as declared fields do."""
    draft = CapacityRequestFactory(buyer=buyer.org, status="draft")
    client = token_client(buyer.user)
    response = client.patch(f"/api/v1/requests/{draft.pk}/", {field: sent}, format="json")
    assert response.status_code == 400, response.json()
    assert response.json()["errors"] == {field: ["Must be a valid boolean."]}
