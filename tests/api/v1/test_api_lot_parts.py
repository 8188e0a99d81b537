"""A lot's own fixture and terms over the API: given by the buyer while a draft, sized to the
lot, edited like the request's, returned to sharing; a lot that shares says so."""

from __future__ import annotations

import io
import tarfile

import pytest

from acceptance.services.fixtures import fixture_from_template
from bids.choices import RequestStatus
from contracts.services.terms import terms_create
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from tests.api.v1.conftest import token_client
from tests.factories import CapacityRequestFactory, InvitationFactory, LotFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(buyer):
    req = CapacityRequestFactory(
        buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None, nodes=6, gpu_count=48
    )
    LotFactory(request=req, number=1, name="Pre-training", nodes=4)
    LotFactory(request=req, number=2, name="Inference", nodes=2)
    fixture_from_template(capacity_request=req, user=buyer.user, template=DEFAULT_TEMPLATE)
    terms_create(capacity_request=req, user=buyer.user, template="training-24x7")
    return req


def test_a_buyer_gives_a_lot_its_own_fixture_edits_it_and_shares_again(draft, buyer):
    api = token_client(buyer.user)
    url = f"/api/v1/requests/{draft.pk}/lots/2/fixture/"
    shared = api.get(url)
    assert shared.status_code == 404
    assert "Lot 2 shares the request's fixture" in shared.json()["detail"]

    made = api.post(url, {"template": "single-node-nvlink"}, format="json")
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["spec"]["allocation"]["nodes"] == 2 and body["template"] == "single-node-nvlink"
    bundle = api.get(body["bundle_url"])
    assert bundle.status_code == 200
    with tarfile.open(fileobj=io.BytesIO(bundle.content), mode="r:gz") as archive:
        assert archive.getnames()

    too_big = api.patch(url, {"changes": {"allocation.nodes": 4}}, format="json")
    assert too_big.status_code == 400
    assert "Lot 2 asks for 2 nodes" in str(too_big.json())
    # The request's own fixture is the request's six nodes, untouched.
    request_fixture = api.get(f"/api/v1/requests/{draft.pk}/fixture/").json()
    assert request_fixture["spec"]["allocation"]["nodes"] == 6

    assert api.delete(url).status_code == 204
    assert api.get(url).status_code == 404


def test_a_lots_own_terms_start_from_the_requests(draft, buyer):
    api = token_client(buyer.user)
    url = f"/api/v1/requests/{draft.pk}/lots/1/terms/"
    made = api.post(url, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["s1_response_minutes"] == draft.handoff_terms.s1_response_minutes
    changed = api.patch(url, {"s1_response_minutes": 7}, format="json")
    assert changed.status_code == 200 and changed.json()["s1_response_minutes"] == 7
    request_terms = api.get(f"/api/v1/requests/{draft.pk}/terms/").json()
    assert request_terms["s1_response_minutes"] != 7
    assert api.delete(url).status_code == 204


def test_once_published_a_lot_keeps_its_choice_and_invitees_read_its_own(
    draft, buyer, provider, rival_provider
):
    api = token_client(buyer.user)
    url = f"/api/v1/requests/{draft.pk}/lots/1/fixture/"
    api.post(url, {"template": DEFAULT_TEMPLATE}, format="json")
    InvitationFactory(request=draft, provider=provider.org)
    assert token_client(provider.user).get(url).status_code == 404  # a draft is the buyer's
    draft.status = RequestStatus.OPEN
    draft.save(update_fields=["status"])
    assert token_client(provider.user).get(url).status_code == 200
    assert token_client(rival_provider.user).get(url).status_code == 404  # not invited
    assert api.delete(url).status_code == 409
    assert api.post(f"/api/v1/requests/{draft.pk}/lots/2/terms/").status_code == 409
    edited = api.patch(url, {"changes": {"runtime.nccl_version": "2.23.4"}}, format="json")
    assert edited.status_code == 200 and edited.json()["number"] == 2


def test_each_choice_of_a_lots_own_is_on_the_audit_chain(draft, buyer):
    from audit.models import AuditEntry

    api = token_client(buyer.user)
    base = f"/api/v1/requests/{draft.pk}/lots/2"
    assert api.post(f"{base}/fixture/", {"template": DEFAULT_TEMPLATE}).status_code == 201
    assert api.post(f"{base}/terms/", format="json").status_code == 201
    assert api.delete(f"{base}/fixture/").status_code == 204
    assert api.delete(f"{base}/terms/").status_code == 204
    entries = AuditEntry.objects.filter(after__lot=2).order_by("pk")
    assert [e.action for e in entries] == [
        "fixture.version",
        "terms.version",
        "fixture.lot_share",
        "terms.lot_share",
    ]


def test_the_bundle_is_named_for_its_fixture_and_a_bad_version_is_not_found(draft, buyer):
    """The request's and a lot's bundles come from one download: each file names whose
    fixture it is, its version and hash; a version that is not a number, or not there, is 404."""
    api = token_client(buyer.user)
    api.post(f"/api/v1/requests/{draft.pk}/lots/2/fixture/", {"template": "single-node-nvlink"})
    for path, prefix in [
        (f"/api/v1/requests/{draft.pk}/fixture/bundle/", "clusterbid-fixture-v1-"),
        (f"/api/v1/requests/{draft.pk}/lots/2/fixture/bundle/", "clusterbid-lot2-fixture-v1-"),
    ]:
        bundle = api.get(path)
        assert bundle.status_code == 200, path
        assert f'filename="{prefix}' in bundle["Content-Disposition"]
        assert api.get(path, {"version": "one"}).status_code == 404
        assert api.get(path, {"version": "9"}).status_code == 404
