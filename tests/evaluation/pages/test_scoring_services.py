"""Scoring runs: queued on commit, idempotent, stale when inputs change, failures kept."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from bids import services
from evaluation import services as scoring_service
from evaluation.models import BidScore, ScoringRun, ScoringStatus
from evaluation.services import request_score, request_set_weights, scoring_queue
from tests.evaluation.pages.conftest import score


def test_submitting_a_bid_scores_the_request_after_commit(
    world, provider, django_capture_on_commit_callbacks
):
    services.bid_save_draft(
        bid=world.bid, user=provider.user, data={"price_per_gpu_hour": Decimal("2.2")}
    )
    with django_capture_on_commit_callbacks(execute=True):
        services.bid_submit(bid=world.bid, user=provider.user)
    run = ScoringRun.objects.get(request=world.request, stale=False)
    assert run.status == ScoringStatus.DONE
    assert run.bid_count == 2
    revisions = {s.revision.number for s in run.scores.filter(revision__bid=world.bid)}
    assert revisions == {2}  # the latest revision, never the first


def test_nothing_is_scored_until_the_transaction_commits(world, provider):
    services.bid_save_draft(bid=world.bid, user=provider.user, data={"site": "Paris"})
    services.bid_submit(bid=world.bid, user=provider.user)
    assert not ScoringRun.objects.exists()


def test_scoring_the_same_inputs_twice_adds_no_rows(world):
    first = score(world.request)
    again = score(world.request)
    assert again.pk == first.pk
    assert ScoringRun.objects.count() == 1
    assert BidScore.objects.count() == 2
    assert again.attempts == 1


def test_new_scoring_rules_score_unchanged_bids_again(world, monkeypatch):
    """A change to the formulas bumps MODEL_VERSION: runs scored under the old rules no longer
    answer for the same bids, so the comparison is redone rather than reused."""
    first = score(world.request)
    monkeypatch.setattr("evaluation.scoring_io.MODEL_VERSION", "next")
    again = score(world.request)
    assert again.pk != first.pk and again.fingerprint != first.fingerprint
    assert BidScore.objects.filter(run=again).count() == 2


def test_a_redelivered_task_for_a_running_run_replaces_its_rows(world):
    run = score(world.request)
    ScoringRun.objects.filter(pk=run.pk).update(status=ScoringStatus.RUNNING)
    rerun = score(world.request)
    assert rerun.pk == run.pk and rerun.status == ScoringStatus.DONE
    assert rerun.attempts == 2
    assert BidScore.objects.filter(run=run).count() == 2


def test_a_weight_change_makes_the_shown_run_stale_and_queues_a_new_one(
    world, buyer, django_capture_on_commit_callbacks
):
    old = score(world.request)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        request_set_weights(
            capacity_request=world.request, user=buyer.user, weights=_weights(effective_cost="80")
        )
    old.refresh_from_db()
    assert old.stale
    queued = ScoringRun.objects.get(request=world.request, stale=False)
    assert queued.status == ScoringStatus.QUEUED
    assert queued.weights["effective_cost"] == 80
    assert len(callbacks) == 1
    callbacks[0]()
    queued.refresh_from_db()
    assert queued.status == ScoringStatus.DONE
    assert BidScore.objects.filter(run=queued, weights_hash=queued.weights_hash).count() == 2


def test_going_back_to_earlier_weights_reuses_their_run(
    world, buyer, django_capture_on_commit_callbacks
):
    first = score(world.request)
    with django_capture_on_commit_callbacks(execute=True):
        request_set_weights(
            capacity_request=world.request, user=buyer.user, weights=_weights(effective_cost="80")
        )
        request_set_weights(capacity_request=world.request, user=buyer.user, weights=_weights())
    first.refresh_from_db()
    assert not first.stale
    assert ScoringRun.objects.filter(request=world.request).count() == 2


def test_a_withdrawal_rescores_without_the_bid(world, provider, django_capture_on_commit_callbacks):
    score(world.request)
    with django_capture_on_commit_callbacks(execute=True):
        services.bid_withdraw(bid=world.bid, user=provider.user)
    current = ScoringRun.objects.get(request=world.request, stale=False)
    assert current.bid_count == 1
    assert not current.scores.filter(revision__bid=world.bid).exists()


def test_a_failure_is_recorded_with_its_reason_and_can_be_retried(
    world, monkeypatch, django_capture_on_commit_callbacks
):
    def broken(*args, **kwargs):
        raise RuntimeError("model exploded")

    monkeypatch.setattr(scoring_service, "score_bids", broken)
    run = score(world.request)
    assert run.status == ScoringStatus.FAILED
    assert "RuntimeError: model exploded" in run.error
    assert run.finished_at is not None
    assert not run.scores.exists()

    monkeypatch.undo()
    with django_capture_on_commit_callbacks(execute=True):
        retried = scoring_queue(capacity_request=world.request)
    retried.refresh_from_db()
    assert retried.pk == run.pk
    assert retried.status == ScoringStatus.DONE and retried.error == ""
    assert retried.attempts == 2


def _weights(**overrides: str) -> dict[str, str]:
    base = {
        "effective_cost": "40",
        "fabric_placement": "20",
        "incident_sla": "20",
        "acceptance_terms": "10",
        "delivery_risk": "10",
    }
    return base | overrides


@pytest.mark.parametrize(
    ("weights", "field", "message"),
    [
        (_weights(effective_cost="-1"), "effective_cost", "Must not be negative"),
        (_weights(delivery_risk="lots"), "delivery_risk", "Must be a number"),
        (_weights(incident_sla="inf"), "incident_sla", "Must be finite"),
        (dict.fromkeys(_weights(), "0"), "__all__", "At least one weight must be above zero"),
    ],
)
def test_weights_are_validated_one_by_one(world, buyer, weights, field, message):
    with pytest.raises(ValidationError) as caught:
        request_set_weights(capacity_request=world.request, user=buyer.user, weights=weights)
    assert any(message in m for m in caught.value.message_dict[field])
    world.request.refresh_from_db()
    assert world.request.weights["effective_cost"] == 40


def test_a_revision_the_cost_model_cannot_read_fails_the_run_with_its_reason(world):
    """Stored before validation refused zero nodes: the run fails visibly, never stays queued."""
    from bids.models import Bid, BidRevision

    bad = world.bid.revisions.get()
    BidRevision.objects.create(
        **{**{f: getattr(bad, f) for f in Bid.term_field_names()}, "nodes": 0},
        bid=world.bid,
        number=2,
        submitted_by=bad.submitted_by,
        submitted_at=bad.submitted_at,
        questionnaire=bad.questionnaire,
    )
    Bid.objects.filter(pk=world.bid.pk).update(latest_revision_number=2)
    scoring_queue(capacity_request=world.request)
    run = request_score(capacity_request=world.request)
    assert run.status == ScoringStatus.FAILED and "nodes" in run.error
    assert ScoringRun.objects.get(request=world.request, stale=False).pk == run.pk


def test_a_scoring_run_stuck_running_is_failed_past_its_limit(scored, settings):
    from datetime import timedelta

    from django.utils import timezone

    from core.jobs import reap_stuck_jobs
    from evaluation.models import ScoringRun, ScoringStatus

    run = ScoringRun.objects.filter(request=scored.request).latest("pk")
    late = timezone.now() - timedelta(seconds=settings.JOB_TIME_LIMIT_SECONDS + 120)
    ScoringRun.objects.filter(pk=run.pk).update(status=ScoringStatus.RUNNING, started_at=late)
    assert reap_stuck_jobs()["scoring runs"] == 1
    run.refresh_from_db()
    assert run.status == ScoringStatus.FAILED and "Retry" in run.error
