"""Awarding a solved scenario of the worked example: one reservation per (lot, provider), each
with its own acceptance, clock and term; the bidders that won nothing are debriefed; the award
is refused when stale, infeasible or already made, and a second submit changes nothing."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.http import Http404
from django.urls import reverse

from acceptance.models import Reservation, ReservationStatus
from acceptance.selectors.burnin import reservation_get, reservations_for_request
from acceptance.services.fixtures import fixture_from_template
from audit.models import AuditEntry
from bids.choices import BidStatus, RequestStatus
from bids.models import Bid
from bids.services import bid_save_draft, bid_submit
from core.errors import Conflict
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from evaluation.models import BidDebrief
from evaluation.scenario_award import scenario_award
from evaluation.scenario_models import ScenarioAward
from evaluation.scenario_services import scenario_solve
from evaluation.selectors import award_rows
from evaluation.services import request_score
from notices.models import Notice
from tests.evaluation.scenarios.world import define

pytestmark = pytest.mark.django_db

WHY = "The two-provider split keeps pre-training and fine-tuning in one fabric."


def _closed(req, buyer):
    fixture_from_template(capacity_request=req, user=buyer.user, template=DEFAULT_TEMPLATE)
    req.status = RequestStatus.CLOSED
    req.save(update_fields=["status"])


def _solved(req, user, **rules):
    scenario = define(req, user, **rules)
    solved = scenario_solve(scenario_id=scenario.pk, revision=scenario.revision)
    assert solved is not None, "the task stored nothing"
    return solved


def _two_providers(req, buyer, cirrus):
    """Cirrus excluded and no share cap: Rival Cloud takes lots 1 and 2, Northwind lot 3."""
    return _solved(
        req,
        buyer.user,
        name="Two providers",
        max_share_pct=None,
        min_regions=None,
        excluded_providers=[cirrus.org.pk],
    )


def test_two_providers_across_three_lots_get_a_reservation_per_lot_and_provider(
    worked, buyer, provider, rival_provider, cirrus
):
    _closed(worked, buyer)
    scenario = _two_providers(worked, buyer, cirrus)
    award = scenario_award(scenario=scenario, user=buyer.user)

    got = {
        (r.lot.number, r.bid.provider.name, r.nodes, r.price_per_gpu_hour)
        for r in Reservation.objects.filter(request=worked)
    }
    # Rival Cloud wins both lots of its "−5 % if awarded 1 and 2": each lot's rate carries it
    # (2.10 × 0.95 = 1.995, 2.20 × 0.95 = 2.090); Northwind's lot 3 has no bundle, list price.
    assert got == {
        (1, "Rival Cloud", 32, Decimal("1.995")),
        (2, "Rival Cloud", 16, Decimal("2.090")),
        (3, "Northwind", 8, Decimal("2.500")),
    }
    assert award.reservations.count() == 3
    for reservation in Reservation.objects.filter(request=worked).select_related("lot"):
        # Each is its own acceptance: pending, no clock yet, measured against the fixture.
        assert reservation.status == ReservationStatus.PENDING
        assert reservation.clock_start is None
        assert reservation.fixture_version is not None
        assert reservation.term_start == reservation.lot.start
    worked.refresh_from_db()
    assert worked.status == RequestStatus.AWARDED
    statuses = dict(Bid.objects.filter(request=worked).values_list("provider__name", "status"))
    assert statuses == {
        "Rival Cloud": BidStatus.AWARDED,
        "Northwind": BidStatus.AWARDED,
        "Cirrus Compute": BidStatus.LOST,
    }


def test_the_bidder_that_won_nothing_is_debriefed_and_winners_hear_of_their_own_lots(
    worked, buyer, provider, rival_provider, cirrus
):
    _closed(worked, buyer)
    scenario_award(scenario=_two_providers(worked, buyer, cirrus), user=buyer.user)
    lost = BidDebrief.objects.get(bid__provider=cirrus.org)
    assert not lost.won
    assert BidDebrief.objects.get(bid__provider=provider.org).won
    to_cirrus = Notice.objects.get(recipient=cirrus.user)
    assert "awarded to another bid" in to_cirrus.subject
    to_northwind = Notice.objects.get(recipient=provider.user, subject__startswith="You won")
    assert "lot 3 (Inference)" in to_northwind.body
    assert "Rival Cloud" not in to_northwind.body and "lot 1" not in to_northwind.body


def test_each_provider_sees_only_its_own_reservations(
    worked, buyer, provider, rival_provider, cirrus, client
):
    _closed(worked, buyer)
    scenario_award(scenario=_two_providers(worked, buyer, cirrus), user=buyer.user)
    northwind = reservations_for_request(capacity_request=worked, org=provider.org)
    assert [(r.lot.number, r.bid.provider_id) for r in northwind] == [(3, provider.org.pk)]
    assert len(reservations_for_request(capacity_request=worked, org=buyer.org)) == 3
    assert reservations_for_request(capacity_request=worked, org=cirrus.org) == []
    rival_lot = Reservation.objects.get(request=worked, lot__number=1)
    with pytest.raises(Http404):
        reservation_get(org_ids=[provider.org.pk], pk=rival_lot.pk)
    client.force_login(provider.user)
    page = client.get(reverse("burnin:reservation-detail", args=[rival_lot.pk]))
    assert page.status_code == 404
    own = client.get(reverse("burnin:reservation-detail", args=[northwind[0].pk]))
    assert own.status_code == 200 and "Inference" in own.content.decode()


def test_the_worked_scenario_awards_four_reservations_and_audits_the_award(
    worked, buyer, provider, rival_provider, cirrus
):
    _closed(worked, buyer)
    scenario = _solved(worked, buyer.user)
    award = scenario_award(scenario=scenario, user=buyer.user, justification=WHY)
    nodes = {(r.lot.number, r.bid.provider.name): r.nodes for r in award.reservations.all()}
    assert nodes == {
        (1, "Rival Cloud"): 32,
        (2, "Rival Cloud"): 10,
        (2, "Cirrus Compute"): 6,
        (3, "Northwind"): 8,
    }
    entry = AuditEntry.objects.get(action="scenario.award")
    assert entry.reason == WHY and entry.after["cost"] == "677606.40"
    assert AuditEntry.objects.filter(action="reservation.open").count() == 4


def test_a_second_submit_returns_the_award_already_made(
    worked, buyer, provider, rival_provider, cirrus
):
    _closed(worked, buyer)
    scenario = _two_providers(worked, buyer, cirrus)
    first = scenario_award(scenario=scenario, user=buyer.user)
    again = scenario_award(scenario=scenario, user=buyer.user)
    assert again.pk == first.pk
    assert Reservation.objects.filter(request=worked).count() == 3
    assert AuditEntry.objects.filter(action="scenario.award").count() == 1


def test_another_scenario_of_an_awarded_request_is_refused(
    worked, buyer, provider, rival_provider, cirrus
):
    _closed(worked, buyer)
    other = _solved(worked, buyer.user)
    scenario_award(scenario=_two_providers(worked, buyer, cirrus), user=buyer.user)
    with pytest.raises(Conflict, match="already awarded"):
        scenario_award(scenario=other, user=buyer.user)
    assert not ScenarioAward.objects.filter(scenario=other).exists()


def test_an_infeasible_scenario_is_refused_naming_why(
    worked, buyer, provider, rival_provider, cirrus
):
    _closed(worked, buyer)
    scenario = _solved(worked, buyer.user, max_share_pct=Decimal("60"))
    with pytest.raises(Conflict, match="infeasible"):
        scenario_award(scenario=scenario, user=buyer.user)
    assert not Reservation.objects.filter(request=worked).exists()


def test_a_scenario_solved_before_a_bid_changed_is_stale(
    worked, buyer, provider, rival_provider, cirrus
):
    scenario = _two_providers(worked, buyer, cirrus)
    # Cirrus revises its bid before the close: the stored answer read the old revision.
    bid = Bid.objects.get(request=worked, provider=cirrus.org)
    offers = [{"lot": 2, "price_per_gpu_hour": "2.05", "nodes": 16}]
    bid_save_draft(bid=bid, user=cirrus.user, data={"lot_offers": offers})
    bid_submit(bid=bid, user=cirrus.user)
    _closed(worked, buyer)
    with pytest.raises(Conflict, match="changed since"):
        scenario_award(scenario=scenario, user=buyer.user)


def test_a_justification_given_is_kept_with_every_reservation(
    worked, buyer, provider, rival_provider, cirrus
):
    _closed(worked, buyer)
    award = scenario_award(
        scenario=_two_providers(worked, buyer, cirrus), user=buyer.user, justification=WHY
    )
    assert award.justification == WHY
    assert {r.award_justification for r in award.reservations.all()} == {WHY}


def test_bids_short_of_the_whole_request_are_awarded_without_a_justification(
    worked, buyer, provider, rival_provider, cirrus
):
    """Whole-bid scoring disqualifies a bid for some lots as too small for the request; the
    scenario sized each share, so that alone asks for no justification."""
    _closed(worked, buyer)
    worked.gpu_count = worked.nodes * worked.gpus_per_node  # 448, as the request form makes it
    worked.save(update_fields=["gpu_count"])
    request_score(capacity_request=worked)
    scenario = _solved(worked, buyer.user)
    rows = {r.bid.provider.name: r for r in award_rows(capacity_request=worked)}
    assert any("GPUs, the request needs" in " ".join(r.disqualifications) for r in rows.values())
    award = scenario_award(scenario=scenario, user=buyer.user)
    assert award.justification == "" and award.reservations.count() == 4


def test_a_lot_given_to_a_bid_in_the_wrong_region_needs_a_justification(
    worked, buyer, provider, rival_provider, cirrus
):
    _closed(worked, buyer)
    worked.acceptable_regions = ["apac"]
    worked.save(update_fields=["acceptable_regions"])
    request_score(capacity_request=worked)
    scenario = _solved(worked, buyer.user)
    with pytest.raises(ValidationError) as refused:
        scenario_award(scenario=scenario, user=buyer.user)
    why = refused.value.message_dict["justification"][0]
    assert why.startswith("The current scoring disqualifies the bid")
    assert "write why you award it" in why
