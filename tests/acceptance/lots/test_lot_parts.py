"""A lot's own fixture and handoff terms: chosen while the request is a draft, sized to the
lot, acknowledged per lot, and required before a bid on that lot is submitted."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from acceptance.models import Acknowledgement, AckStatus, Fixture
from acceptance.selectors.lot_parts import lot_acknowledgements
from acceptance.services.acknowledgements import acknowledgement_submit
from acceptance.services.fixtures import (
    fixture_from_template,
    fixture_save,
    lot_fixture_own,
    lot_fixture_share,
)
from audit.models import AuditEntry
from bids.choices import BidStatus, RequestStatus
from bids.models import Invitation
from bids.services import bid_save_draft, bid_submit
from contracts.models import HandoffTerms
from contracts.services.terms import lot_terms_own, lot_terms_share, terms_create, terms_update
from core.errors import ServiceError
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from tests.factories import BidFactory, CapacityRequestFactory, LotFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(buyer):
    req = CapacityRequestFactory(
        buyer=buyer.org,
        draft=True,
        gpu_count=48,
        nodes=6,
        gpus_per_node=8,
    )
    LotFactory(request=req, number=1, name="Pre-training", nodes=4, gpus_per_node=8)
    LotFactory(request=req, number=2, name="Inference", nodes=2, gpus_per_node=8)
    fixture_from_template(capacity_request=req, user=buyer.user, template=DEFAULT_TEMPLATE)
    return req


def _open(req, *providers):
    req.status = RequestStatus.OPEN
    req.save(update_fields=["status"])
    for role in providers:
        Invitation.objects.get_or_create(request=req, provider=role.org)


def _bid_on(req, role, lots):
    bid = BidFactory(request=req, provider=role.org)
    offers = [{"lot": lot.number, "price_per_gpu_hour": "2.40", "nodes": lot.nodes} for lot in lots]
    bid_save_draft(bid=bid, user=role.user, data={"lot_offers": offers})
    return bid


def test_a_lot_gets_its_own_fixture_for_its_size_and_can_share_the_requests_again(draft, buyer):
    lot = draft.lots.get(number=2)
    version = lot_fixture_own(lot=lot, user=buyer.user)
    assert version.spec["allocation"]["nodes"] == 2
    assert version.spec["allocation"]["gpus"] == 16
    # The request's fixture is untouched: still the request's six nodes.
    assert draft.fixture.versions.get().spec["allocation"]["nodes"] == 6

    with pytest.raises(ValidationError) as bigger:
        fixture_save(fixture=version.fixture, user=buyer.user, changes={"allocation.nodes": 4})
    assert "Lot 2 asks for 2 nodes; the fixture cannot test 4" in str(bigger.value)

    lot_fixture_share(lot=lot, user=buyer.user)
    assert not Fixture.objects.filter(lot=lot).exists()
    assert Fixture.objects.filter(request=draft).exists()
    actions = list(
        AuditEntry.objects.filter(request_id=draft.pk, action__startswith="fixture.")
        .order_by("pk")
        .values_list("action", "after__lot")
    )
    assert actions[-2:] == [("fixture.version", 2), ("fixture.lot_share", 2)]


def test_whether_a_lot_has_its_own_parts_is_fixed_once_published(draft, buyer, provider):
    lot = draft.lots.get(number=1)
    lot_fixture_own(lot=lot, user=buyer.user)
    _open(draft, provider)
    with pytest.raises(ServiceError):
        lot_terms_own(lot=lot, user=buyer.user)
    with pytest.raises(ServiceError):
        lot_fixture_share(lot=lot, user=buyer.user)
    # Its own fixture still changes as the request's does while open: a new version.
    fixture = Fixture.objects.get(lot=lot)
    fixture_save(fixture=fixture, user=buyer.user, changes={"runtime.nccl_version": "2.23.4"})
    fixture.refresh_from_db()
    assert fixture.current_number == 2


def test_a_lots_own_terms_start_from_the_requests_and_change_in_revisions(draft, buyer):
    terms_create(capacity_request=draft, user=buyer.user, template="training-24x7")
    shared = HandoffTerms.objects.get(request=draft)
    terms_update(terms=shared, user=buyer.user, data={"s1_response_minutes": 20})
    lot = draft.lots.get(number=1)
    own = lot_terms_own(lot=lot, user=buyer.user)
    assert own.lot == lot and own.request is None
    assert own.s1_response_minutes == 20 and own.version == 1
    terms_update(terms=own, user=buyer.user, data={"s1_response_minutes": 10})
    own.refresh_from_db()
    shared.refresh_from_db()
    assert (own.version, own.s1_response_minutes) == (2, 10)
    assert (shared.version, shared.s1_response_minutes) == (2, 20)
    lot_terms_share(lot=lot, user=buyer.user)
    assert not HandoffTerms.objects.filter(lot=lot).exists()


def test_a_bid_on_a_lot_with_its_own_fixture_waits_for_its_acknowledgement(
    draft, buyer, provider, rival_provider
):
    own_lot, shared_lot = draft.lots.get(number=1), draft.lots.get(number=2)
    lot_fixture_own(lot=own_lot, user=buyer.user)
    _open(draft, provider, rival_provider)
    bid = _bid_on(draft, provider, [own_lot, shared_lot])
    with pytest.raises(ValidationError) as refused:
        bid_submit(bid=bid, user=provider.user)
    assert refused.value.message_dict["lot_offers"] == [
        "Lot 1 has its own fixture: acknowledge them on the bid's page before submitting."
    ]
    # A bid on the lot that shares the request's fixture is not held up.
    rival = _bid_on(draft, rival_provider, [shared_lot])
    bid_submit(bid=rival, user=rival_provider.user)

    ack = acknowledgement_submit(
        bid=bid, user=provider.user, status=AckStatus.ACCEPTED, lot=own_lot
    )
    assert ack.fixture_version.fixture.lot == own_lot and ack.terms_revision is None
    bid_submit(bid=bid, user=provider.user)
    bid.refresh_from_db()
    assert bid.status == BidStatus.SUBMITTED
    # The lot's acknowledgement is not the request's: the request's is still to be given.
    assert not Acknowledgement.objects.filter(bid=bid, lot__isnull=True).exists()

    # A new version of the lot's fixture asks for a new acknowledgement before a resubmit.
    fixture_save(
        fixture=own_lot.fixture, user=buyer.user, changes={"runtime.nccl_version": "2.23.4"}
    )
    [state] = lot_acknowledgements(bid=bid)
    assert not state.current
    assert state.stale_reasons == ["the fixture is now version 2 (you acknowledged version 1)"]
    cheaper = [{"lot": 1, "price_per_gpu_hour": "2.30", "nodes": 4}]
    bid_save_draft(bid=bid, user=provider.user, data={"lot_offers": cheaper})
    with pytest.raises(ValidationError, match="Lot 1 has its own fixture"):
        bid_submit(bid=bid, user=provider.user)


def test_a_lot_that_shares_the_requests_parts_has_nothing_to_acknowledge(draft, buyer, provider):
    _open(draft, provider)
    bid = _bid_on(draft, provider, [draft.lots.get(number=2)])
    with pytest.raises(ServiceError, match="Lot 2 shares the request's fixture and terms"):
        acknowledgement_submit(
            bid=bid, user=provider.user, status=AckStatus.ACCEPTED, lot=draft.lots.get(number=2)
        )
