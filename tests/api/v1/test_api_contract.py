"""The schema is the contract: a client that uses its field names, lists and orderings as
documented gets what they promise; a name the schema does not offer is refused by name."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator
from jsonschema import Draft202012Validator

from acceptance.models import DecisionKind, EvidenceState
from engine.evidence.fixtures import default_spec
from questionnaire.models import QuestionSet
from tests.acceptance.burnin.helpers import GOOD_SET, awarded, file_upload, upload, upload_all
from tests.api.v1.conftest import token_client
from tests.factories import CapacityRequestFactory

__all__ = ["awarded"]
pytestmark = pytest.mark.django_db


def _request_fields(component: str) -> set[str]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return set(schema["components"]["schemas"][component]["properties"])


def test_an_override_with_the_schemas_field_names_takes_two_people(
    awarded, buyer, buyer_colleague, provider, django_capture_on_commit_callbacks
):
    files = [f for f in GOOD_SET if "all_reduce" not in f[0]]
    files.append(("burnin/nccl-tests/all_reduce_2node_slow.txt", ""))
    upload_all(awarded.run, provider.user, files, django_capture_on_commit_callbacks)
    assert _request_fields("AcceptRequest") == {"run"}
    fields = _request_fields("OverrideRequestRequest")
    assert fields == {"run", "reason", "waived", "baseline_from_run", "confirm"}
    client = token_client(buyer.user)
    base = f"/api/v1/reservations/{awarded.reservation.pk}"

    refused = client.post(f"{base}/accept/", {"run": awarded.run.pk}, format="json")
    assert refused.status_code == 409 and refused.json()["move"] == "accept"
    assert "ask for an override" in refused.json()["detail"]

    one_click = client.post(
        f"{base}/override/", {"run": awarded.run.pk, "reason": "ok", "waived": []}, format="json"
    )
    assert one_click.status_code == 400
    errors = one_click.json()["errors"]
    assert set(errors) <= fields, f"errors name fields the schema does not have: {errors}"
    assert {"reason", "waived", "confirm"} <= set(errors)

    # The codes come with the run's checks.
    checks = client.get(f"/api/v1/runs/{awarded.run.pk}/evidence/").json()["checks"]
    codes = [c["code"] for c in checks if c["mandatory"] and c["status"] == "fail"]
    body = {
        "run": awarded.run.pk,
        "reason": "Fabric fix scheduled; credits agreed in writing.",
        "waived": codes,
        "confirm": True,
    }
    asked = client.post(f"{base}/override/", body, format="json")
    assert asked.status_code == 201, asked.content
    assert asked.json()["outcome"] == "pending" and not asked.json()["baseline_from_run"]
    assert [w["code"] for w in asked.json()["waived"]] == codes
    pending = client.get(f"{base}/").json()
    assert pending["status"] == "pending" and pending["override"]["id"] == asked.json()["id"]

    own = client.post(f"{base}/override/approve/", format="json")
    assert own.status_code == 403 and "You asked for this override" in own.json()["detail"]
    provider_try = token_client(provider.user).post(f"{base}/override/approve/")
    assert provider_try.status_code == 403

    approved = token_client(buyer_colleague.user).post(f"{base}/override/approve/")
    assert approved.status_code == 201, approved.content
    decision = approved.json()
    assert decision["kind"] == DecisionKind.OVERRIDE
    assert (decision["requested_by"], decision["by"]) == ("alice", "bob")
    assert decision["reason"] == body["reason"]
    assert [w["code"] for w in decision["waived"]] == codes
    reservation = client.get(f"{base}/").json()
    assert reservation["status"] == "accepted" and reservation["override"] is None
    assert reservation["clock_starts_at"].startswith(str(awarded.request.reservation_start))


def _evidence_url(awarded: Any) -> str:
    return f"/api/v1/runs/{awarded.run.pk}/evidence/"


def test_run_evidence_pages_like_every_list(awarded, provider):
    for name, node in GOOD_SET[:3]:
        upload(awarded.run, provider.user, name, node)
    client = token_client(provider.user)
    first = client.get(_evidence_url(awarded) + "?page_size=2&ordering=original_name").json()
    assert first["count"] == 3 and first["next"] and first["previous"] is None
    assert [e["name"] for e in first["results"]] == [
        "all_reduce_2node_pass.txt",
        "fixture_16ranks.jsonl",
    ]
    assert first["run"]["id"] == awarded.run.pk and "checks" in first and "gate" in first
    second = client.get(first["next"]).json()
    assert [e["name"] for e in second["results"]] == ["step_times_16ranks.csv"]
    assert second["next"] is None
    queued = client.get(_evidence_url(awarded) + f"?state={EvidenceState.PARSED}").json()
    assert queued["count"] == 0  # nothing parsed: the worker never ran here


@pytest.mark.parametrize(
    ("path", "allowed"),
    [
        ("/api/v1/requests/", "bid_deadline"),
        ("/api/v1/reservations/", "awarded_at"),
        ("/api/v1/failed-runs/", "uploaded_at"),
        ("evidence", "uploaded_at"),
    ],
)
def test_an_unknown_ordering_is_refused_naming_the_allowed_ones(awarded, buyer, path, allowed):
    url = _evidence_url(awarded) if path == "evidence" else path
    response = token_client(buyer.user).get(url + "?ordering=-title,bogus")
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"detail", "errors"} and list(body["errors"]) == ["ordering"]
    (message,) = body["errors"]["ordering"]
    assert "'bogus'" in message and allowed in message


def test_a_known_ordering_still_orders(buyer):
    for title in ("Beta", "Alpha"):
        CapacityRequestFactory(buyer=buyer.org, title=title)
    titles = [
        r["title"]
        for r in token_client(buyer.user).get("/api/v1/requests/?ordering=-title").json()["results"]
    ]
    assert titles == sorted(titles, reverse=True)


def test_a_bad_node_label_is_named_node_not_file(awarded, provider):
    response = token_client(provider.user).post(
        _evidence_url(awarded),
        {"file": file_upload("burnin/nccl-tests/all_reduce_2node_pass.txt"), "node": "gpu a01; rm"},
        format="multipart",
    )
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert list(errors) == ["node"] and "node name (gpu-a01)" in errors["node"][0]
    assert awarded.run.evidence.count() == 0


def test_a_questionnaire_not_attached_says_so_to_a_party_only(world, provider, outsider):
    assert not QuestionSet.objects.filter(request=world.request).exists()
    url = f"/api/v1/requests/{world.request.pk}/questionnaire/"
    missing = token_client(provider.user).get(url)
    assert missing.status_code == 404
    assert missing.json()["detail"] == (
        f"Request {world.request.pk} has no questionnaire attached yet; its buyer attaches one "
        f"with POST /api/v1/requests/{world.request.pk}/questionnaire/."
    )
    hidden = token_client(outsider.user).get(url)
    assert hidden.status_code == 404 and hidden.json()["detail"] == "Not found."


def test_a_fixture_or_terms_not_attached_says_so(world, provider):
    client = token_client(provider.user)
    for part in ("fixture", "terms"):
        response = client.get(f"/api/v1/requests/{world.request.pk}/{part}/")
        assert response.status_code == 404
        assert f"has no {part} attached yet" in response.json()["detail"]


def test_accepting_with_another_reservations_run_names_run(
    awarded, buyer, provider, rival_provider
):
    from types import SimpleNamespace

    from bids.services import bid_submit
    from tests.acceptance.burnin.helpers import award
    from tests.factories import BidFactory, InvitationFactory

    other = CapacityRequestFactory(buyer=buyer.org, sealed=False)
    bids = []
    for role in (provider, rival_provider):
        InvitationFactory(request=other, provider=role.org)
        bids.append(BidFactory(request=other, provider=role.org))
        bid_submit(bid=bids[-1], user=role.user)
    second = award(SimpleNamespace(request=other, bid=bids[0], rival_bid=bids[1]), buyer)
    url = f"/api/v1/reservations/{awarded.reservation.pk}/accept/"
    body = {"run": second.run.pk}
    refused = token_client(buyer.user).post(url, body, format="json")
    assert refused.status_code == 400
    assert refused.json()["errors"] == {"run": ["That run belongs to another reservation."]}


def test_the_questionnaire_says_which_targets_are_in_force(world, buyer, provider):
    """The handoff terms' clocks override the set's own targets, on the pages and in scoring."""
    from contracts.defaults import DEFAULT_TERMS_TEMPLATE
    from contracts.services.terms import terms_create
    from questionnaire import services as questionnaire_services

    qs = questionnaire_services.question_set_attach_default(
        capacity_request=world.request, user=None
    )
    url = f"/api/v1/requests/{world.request.pk}/questionnaire/"
    before = token_client(provider.user).get(url).json()["in_force"]
    assert before["targets_source"] == "questionnaire targets"
    assert before["target_response_minutes"] == qs.target_response_minutes
    terms = terms_create(
        capacity_request=world.request, user=buyer.user, template=DEFAULT_TERMS_TEMPLATE
    )
    after = token_client(provider.user).get(url).json()["in_force"]
    assert after["targets_source"].startswith("handoff terms")
    assert after["target_response_minutes"]["S1"] == terms.s1_response_minutes


def test_the_fixture_schema_is_served_and_checks_a_spec(client):
    response = client.get(reverse("api:fixture-schema"))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/schema+json"
    checker = Draft202012Validator(response.json())
    spec = default_spec(gpu_model="H200", nodes=2, gpus_per_node=8)
    assert checker.is_valid(spec)
    spec["allocation"]["nodes"] = "two"
    assert not checker.is_valid(spec)
    assert client.post(reverse("api:fixture-schema")).status_code == 405
