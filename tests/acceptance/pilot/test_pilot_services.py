"""Pilots before the award: the buyer invites shortlisted bids, either party uploads the
pilot's evidence through the burn-in pipeline, and the figures it verifies are kept."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.core.exceptions import ValidationError

from acceptance.models import BurnInRun, Evidence, Pilot
from acceptance.selectors.pilot import acknowledged_floors, figure_rows
from acceptance.services import acknowledgement_submit
from acceptance.services import burnin as burnin_services
from acceptance.services.award import request_award
from acceptance.services.pilot import pilot_scoring_set
from audit.models import AuditEntry
from bids.models import Bid
from core.errors import ServiceError
from core.lifecycle import MoveRefused
from evaluation.scoring_io import scoring_inputs
from evaluation.services import scoring_revisions
from notices.choices import Event
from notices.models import Notice
from tests.acceptance.burnin.helpers import attach_fixture, file_upload, two_node_spec
from tests.acceptance.pilot.helpers import invite, run_pilot, shortlist_both

pytestmark = pytest.mark.django_db


def test_the_buyer_invites_a_shortlisted_bid_and_only_its_provider_hears(
    world, buyer, provider, rival_provider
):
    shortlist_both(world, buyer)
    pilot = invite(world.bid, buyer)
    assert BurnInRun.objects.get(pilot=pilot).reservation is None
    assert pilot.fixture_version.fixture.request_id == world.request.pk
    notices = Notice.objects.filter(event=Event.PILOT_INVITED)
    assert [n.recipient for n in notices] == [provider.user]
    assert "to a pilot" in notices[0].subject
    entry = AuditEntry.objects.get(action="pilot.invite")
    assert entry.obj_key == f"pilot:{pilot.pk}" and entry.after["bid"] == world.bid.pk


def test_an_invitation_is_refused_by_party_state_and_window(world, buyer, provider, rival_provider):
    with pytest.raises(MoveRefused) as not_shortlisted:
        invite(world.bid, buyer)
    assert "shortlisted" in str(not_shortlisted.value)
    shortlist_both(world, buyer)
    with pytest.raises(MoveRefused) as wrong_party:
        invite(world.bid, provider)
    assert wrong_party.value.status_code == 403
    start = date.today()
    with pytest.raises(ValidationError) as too_long:
        invite(world.bid, buyer, starts_on=start, ends_on=start + timedelta(days=20))
    assert too_long.value.message_dict == {"ends_on": ["A pilot lasts at most 14 days."]}
    with pytest.raises(ValidationError) as backwards:
        invite(world.bid, buyer, starts_on=start, ends_on=start - timedelta(days=1))
    assert "before the first day" in backwards.value.message_dict["ends_on"][0]
    invite(world.bid, buyer)
    with pytest.raises(MoveRefused) as again:
        invite(world.bid, buyer)
    assert again.value.status_code == 409
    assert Pilot.objects.count() == 1


def test_the_pilots_evidence_is_parsed_checked_and_its_figures_kept(
    world, buyer, provider, django_capture_on_commit_callbacks
):
    shortlist_both(world, buyer)
    pilot = invite(world.bid, buyer)
    evidence = run_pilot(pilot, provider.user, django_capture_on_commit_callbacks)
    assert {e.state for e in Evidence.objects.filter(pk__in=[e.pk for e in evidence])} == {"parsed"}
    run = BurnInRun.objects.get(pilot=pilot)
    assert run.checks_current and run.checks.exists()
    figures = {f["key"]: f for f in pilot.figures}
    assert set(figures) == {
        "bus_bandwidth",
        "nvlink_bandwidth",
        "fabric_bandwidth",
        "fabric_p99_latency",
        "app_step_time",
    }
    assert figures["fabric_bandwidth"]["value"] == pytest.approx(198, abs=1)
    assert "mlx5_1" in figures["fabric_bandwidth"]["where"]
    assert figures["fabric_bandwidth"]["ref"].startswith("ib_write_bw_two_hcas")
    assert figures["fabric_bandwidth"]["line"]
    assert pilot.figures_version == run.checked_version
    checked = Notice.objects.filter(event=Event.PILOT_CHECKED)
    assert {n.organization_id for n in checked} == {world.request.buyer_id, world.bid.provider_id}
    actions = set(
        AuditEntry.objects.filter(obj_key=f"pilot:{pilot.pk}").values_list("action", flat=True)
    )
    assert {"pilot.invite", "pilot.evidence_upload"} <= actions


def test_a_broken_file_names_its_line_and_can_be_retried(
    world, buyer, provider, django_capture_on_commit_callbacks
):
    shortlist_both(world, buyer)
    pilot = invite(world.bid, buyer)
    [broken] = run_pilot(
        pilot,
        provider.user,
        django_capture_on_commit_callbacks,
        [("perftest/broken_lat_row_missing_percentiles.txt", "gpu-a01")],
    )
    broken.refresh_from_db()
    assert broken.state == "unreadable" and broken.error_line == 19
    assert "result row has 6 values for 9 columns" in broken.error
    # A crash while processing (a worker lost, a storage hiccup) is retried the same way.
    broken.state = "error"
    broken.save(update_fields=["state"])
    with django_capture_on_commit_callbacks(execute=True):
        burnin_services.evidence_retry(evidence=broken, user=provider.user)
    broken.refresh_from_db()
    assert broken.state != "error" and broken.attempts == 2


def test_a_rival_cannot_touch_the_pilot_and_the_award_closes_it(
    world, buyer, provider, rival_provider
):
    shortlist_both(world, buyer)
    pilot = invite(world.bid, buyer)
    run = BurnInRun.objects.get(pilot=pilot)
    with pytest.raises(MoveRefused) as rival:
        burnin_services.evidence_upload(
            run=run,
            user=rival_provider.user,
            upload=file_upload("perftest/ib_write_lat_percentiles_three_sizes.txt"),
        )
    assert rival.value.status_code == 403
    request_award(capacity_request=world.request, bid=world.rival_bid, user=buyer.user)
    with pytest.raises(MoveRefused) as closed:
        burnin_services.evidence_upload(
            run=run,
            user=provider.user,
            upload=file_upload("perftest/ib_write_lat_percentiles_three_sizes.txt"),
        )
    assert closed.value.status_code == 409


def test_scoring_uses_verified_figures_only_when_the_buyer_chooses(
    world, buyer, provider, django_capture_on_commit_callbacks
):
    shortlist_both(world, buyer)
    pilot = invite(world.bid, buyer)
    run_pilot(pilot, provider.user, django_capture_on_commit_callbacks)

    def nic_rates() -> dict[int, int]:
        revisions = list(scoring_revisions(capacity_request=world.request))
        _, offers, _ = scoring_inputs(capacity_request=world.request, revisions=revisions)
        return {r.bid_id: o.nic_rate_gbps for r, o in zip(revisions, offers, strict=True)}

    claimed = Bid.objects.get(pk=world.bid.pk).nic_rate_gbps
    assert nic_rates()[world.bid.pk] == claimed
    with django_capture_on_commit_callbacks(execute=True):
        pilot_scoring_set(capacity_request=world.request, user=buyer.user, use_verified=True)
    assert nic_rates() == {world.bid.pk: 198, world.rival_bid.pk: world.rival_bid.nic_rate_gbps}
    entry = AuditEntry.objects.get(action="request.pilot_scoring")
    assert entry.after == {"use_verified": True}
    with pytest.raises(MoveRefused):
        pilot_scoring_set(capacity_request=world.request, user=provider.user, use_verified=False)


def test_without_a_fixture_no_pilot_is_invited(world, buyer):
    shortlist_both(world, buyer)
    world.request.fixture.delete()
    with pytest.raises(ServiceError) as none:
        invite(world.bid, buyer)
    assert "fixture" in str(none.value)


def test_withdrawing_a_file_and_rechecking_are_on_the_pilots_record(
    world, buyer, provider, django_capture_on_commit_callbacks
):
    shortlist_both(world, buyer)
    pilot = invite(world.bid, buyer)
    [latency] = run_pilot(
        pilot,
        provider.user,
        django_capture_on_commit_callbacks,
        [("perftest/ib_write_lat_percentiles_three_sizes.txt", "gpu-a01")],
    )
    assert [f["key"] for f in pilot.figures] == ["fabric_p99_latency"]
    with django_capture_on_commit_callbacks(execute=True):
        burnin_services.evidence_withdraw(evidence=latency, user=buyer.user)
        burnin_services.run_request_recheck(run=latency.run, user=provider.user)
    pilot.refresh_from_db()
    assert pilot.figures == []  # a withdrawn file verifies nothing
    actions = list(
        AuditEntry.objects.filter(obj_key=f"pilot:{pilot.pk}")
        .order_by("seq")
        .values_list("action", "party")
    )
    assert ("pilot.evidence_withdraw", "buyer") in actions
    assert ("pilot.recheck", "provider") in actions


def test_a_fixture_floor_acknowledged_without_exception_stands_as_a_claim(
    world, buyer, provider, rival_provider
):
    attach_fixture(world.request, two_node_spec())  # all_reduce busbw floor: 431 GB/s
    acknowledgement_submit(bid=world.bid, user=provider.user, status="accepted")
    acknowledgement_submit(
        bid=world.rival_bid,
        user=rival_provider.user,
        status="accepted_with_exceptions",
        exceptions=[{"text": "We reach 400 GB/s.", "field": "thresholds.busbw_gbps.all_reduce"}],
    )
    shortlist_both(world, buyer)
    floors = acknowledged_floors([world.bid.pk, world.rival_bid.pk])
    assert floors == {world.bid.pk: {"bus_bandwidth": 431.0}, world.rival_bid.pk: {}}
    rows = {r.spec.key: r for r in figure_rows(None, None, floors=floors[world.bid.pk])}
    assert (rows["bus_bandwidth"].claimed, rows["bus_bandwidth"].claimed_from) == (431.0, "fixture")
    assert rows["nvlink_bandwidth"].claimed is None
