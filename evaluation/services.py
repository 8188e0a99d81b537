"""Scoring writes: queue a run for the current inputs, run it, store its rows; set weights.

A run belongs to one fingerprint of the inputs, so queuing or running twice for the same inputs
finds the same run and adds no rows. Any change of inputs makes the shown numbers stale first.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from django.contrib.auth.models import User
from django.core.exceptions import NON_FIELD_ERRORS
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from audit.services import buyer_only
from bids.audit import record_request
from bids.choices import BidStatus, RequestStatus
from bids.models import BidRevision, CapacityRequest
from core.errors import Conflict, ServiceError
from core.queueing import send_task
from engine.scoring import (
    CRITERIA,
    BidOffer,
    RequestProfile,
    WeightError,
    Weights,
    goodput_curve,
    result_to_dict,
    score_bids,
)
from evaluation.models import BidScore, ScoringRun, ScoringStatus
from evaluation.scoring_io import (
    ScoringContext,
    inputs_fingerprint,
    scoring_context,
    scoring_inputs,
    weights_hash,
    weights_of,
)

logger = logging.getLogger(__name__)

SCORED_BID_STATUSES = (BidStatus.SUBMITTED, BidStatus.AWARDED, BidStatus.LOST)
CURVE_POINTS = 40


def scoring_revisions(*, capacity_request: CapacityRequest) -> QuerySet[BidRevision]:
    """The latest revision of every submitted bid, with what the adapters read, in one query.

    After a best-and-final round opened, only the shortlisted bids compete: each one's final
    revision, or its round-1 revision where it did not revise."""
    revisions = BidRevision.objects.filter(
        bid__request=capacity_request,
        bid__status__in=SCORED_BID_STATUSES,
        number=F("bid__latest_revision_number"),
    )
    if capacity_request.in_final_round:
        revisions = revisions.filter(bid__shortlisted=True)
    return revisions.select_related("bid__request", "bid__provider").order_by("bid_id")


@dataclass(frozen=True)
class LiveInputs:
    """The live inputs' fingerprint, with what it read that the comparison shows as well (so
    that it is not read twice): the acknowledgements, and the bids' provider names."""

    fingerprint: str
    context: ScoringContext
    names: dict[int, str]  # provider name by bid id


def scoring_fingerprint(*, capacity_request: CapacityRequest) -> str:
    return live_inputs(capacity_request=capacity_request).fingerprint


def live_inputs(*, capacity_request: CapacityRequest) -> LiveInputs:
    rows = list(
        scoring_revisions(capacity_request=capacity_request).values_list(
            "pk", "bid_id", "bid__provider_id", "bid__provider__name"
        )
    )
    context = scoring_context(
        capacity_request=capacity_request, bids=[(bid, prov) for _, bid, prov, _ in rows]
    )
    fingerprint = inputs_fingerprint(
        capacity_request=capacity_request,
        revision_ids=[pk for pk, _, _, _ in rows],
        weights=weights_of(capacity_request).to_dict(),
        extra=context.fingerprint(),
    )
    return LiveInputs(fingerprint, context, {bid: name for _, bid, _, name in rows})


def _make_current(run: ScoringRun) -> None:
    ScoringRun.objects.filter(request_id=run.request_id, stale=False).exclude(pk=run.pk).update(
        stale=True
    )
    if run.stale:
        run.stale = False
        run.save(update_fields=["stale"])


@transaction.atomic
def scoring_queue(*, capacity_request: CapacityRequest) -> ScoringRun:
    """Supersede the shown scores and queue scoring of the current inputs after commit."""
    run = _run_for(
        capacity_request,
        scoring_fingerprint(capacity_request=capacity_request),
        weights_of(capacity_request),
    )
    _make_current(run)
    if run.status == ScoringStatus.DONE:
        return run  # these exact inputs are scored already
    if run.status == ScoringStatus.FAILED:
        run.status, run.error = ScoringStatus.QUEUED, ""
        run.save(update_fields=["status", "error"])
    from evaluation.tasks import score_request

    request_id = capacity_request.pk
    ScoringRun.objects.filter(pk=run.pk).update(queued_at=timezone.now())
    transaction.on_commit(
        lambda: send_task(
            score_request, request_id, what=f"Scoring of request #{request_id}", quiet=True
        )
    )
    return run


def request_score(*, capacity_request: CapacityRequest) -> ScoringRun:
    """Score the latest revision of every submitted bid under the request's weights."""
    revisions = list(scoring_revisions(capacity_request=capacity_request))
    weights = weights_of(capacity_request)
    try:
        profile, offers, extra = scoring_inputs(
            capacity_request=capacity_request, revisions=revisions
        )
    except Exception as exc:  # a revision the cost model cannot read: say so, never hang
        return _fail_queued_run(capacity_request=capacity_request, exc=exc)
    fingerprint = inputs_fingerprint(
        capacity_request=capacity_request,
        revision_ids=[r.pk for r in revisions],
        weights=weights.to_dict(),
        extra=extra,
    )
    with transaction.atomic():
        run = _run_for(capacity_request, fingerprint, weights)
        if run.status == ScoringStatus.DONE:
            _make_current(run)
            return run
        run.status, run.error = ScoringStatus.RUNNING, ""
        run.started_at, run.finished_at = timezone.now(), None
        run.attempts += 1
        run.bid_count = len(revisions)
        run.save(
            update_fields=["status", "error", "started_at", "finished_at", "attempts", "bid_count"]
        )
    try:
        rows = _score(profile=profile, offers=offers, revisions=revisions, weights=weights, run=run)
        with transaction.atomic():
            BidScore.objects.filter(run=run).delete()  # a redelivered task replaces, never adds
            BidScore.objects.bulk_create(rows)
            run.status = ScoringStatus.DONE
            run.finished_at = timezone.now()
            run.save(
                update_fields=["status", "finished_at", "result", "sensitivity", "winner_label"]
            )
            _make_current(run)
    except Exception as exc:  # any failure, storing included, must reach the page with its reason
        logger.exception("Scoring request %s failed", capacity_request.pk)
        _mark_failed(run, exc)
    return run


def _fail_queued_run(*, capacity_request: CapacityRequest, exc: Exception) -> ScoringRun:
    """Mark the run the page is waiting on as failed, with the reason (retrying re-queues it)."""
    logger.exception("Scoring inputs of request %s are unreadable", capacity_request.pk)
    with transaction.atomic():
        run = _run_for(
            capacity_request,
            scoring_fingerprint(capacity_request=capacity_request),
            weights_of(capacity_request),
        )
        _mark_failed(run, exc)
        _make_current(run)
    return run


def _run_for(capacity_request: CapacityRequest, fingerprint: str, weights: Weights) -> ScoringRun:
    """The one run for these inputs, locked (callers hold a transaction)."""
    run, _ = ScoringRun.objects.select_for_update().get_or_create(
        request=capacity_request,
        fingerprint=fingerprint,
        defaults={"weights": weights.to_dict(), "weights_hash": weights_hash(weights)},
    )
    return run


def _mark_failed(run: ScoringRun, exc: Exception) -> None:
    run.status = ScoringStatus.FAILED
    run.error = f"{type(exc).__name__}: {exc}"
    run.finished_at = timezone.now()
    run.save(update_fields=["status", "error", "finished_at"])


def _score(
    *,
    profile: RequestProfile,
    offers: Sequence[BidOffer],
    revisions: Sequence[BidRevision],
    weights: Weights,
    run: ScoringRun,
) -> list[BidScore]:
    result = score_bids(profile, offers, weights)
    data = result_to_dict(result)
    run.result = data
    run.sensitivity = data["sensitivity"]
    run.winner_label = result.winner or ""
    shares = result.sensitivity.win_shares
    by_label = {o.label: (o, r) for o, r in zip(offers, revisions, strict=True)}
    stored_bids = cast(list[dict[str, Any]], data["bids"])
    rows = []
    for position, (scored, stored) in enumerate(zip(result.bids, stored_bids, strict=True)):
        offer, revision = by_label[scored.label]
        curve = goodput_curve(profile, offer, points=CURVE_POINTS)
        rows.append(
            BidScore(
                run=run,
                revision=revision,
                label=scored.label,
                weights=run.weights,
                weights_hash=run.weights_hash,
                fingerprint=run.fingerprint,
                qualified=scored.qualified,
                rank=scored.rank,
                position=position,
                total=scored.total,
                criteria=stored["criteria"],
                disqualifications=stored["disqualifications"],
                cost=stored["cost"],
                curve={
                    "points": [list(p) for p in curve.points],
                    "chosen": [curve.chosen_interval_seconds, curve.chosen_goodput],
                    "young": curve.young_interval_seconds,
                    "optimum": [curve.optimum_interval_seconds, curve.optimum_goodput],
                },
                win_share=shares.get(scored.label),
            )
        )
    return rows


@transaction.atomic
def request_set_weights(
    *, capacity_request: CapacityRequest, user: User, weights: Mapping[str, object]
) -> CapacityRequest:
    """Validate each weight, store the set, and queue re-scoring. On the record for the buyer
    alone: how a buyer weighs the bids is never an invitee's to read."""
    if capacity_request.status in (RequestStatus.AWARDED, RequestStatus.CANCELLED):
        raise Conflict(
            f"A request that is {capacity_request.get_status_display().lower()} keeps its weights."
        )
    errors: dict[str, list[str]] = {}
    for name in CRITERIA:
        try:
            Weights.from_dict({name: weights.get(name)})
        except WeightError as exc:
            errors.setdefault(name, []).append(_weight_message(exc))
    if errors:
        raise ServiceError(errors)
    try:
        parsed = Weights.from_dict({name: weights.get(name) for name in CRITERIA})
    except WeightError as exc:
        raise ServiceError({exc.weight or NON_FIELD_ERRORS: [_weight_message(exc)]}) from exc
    before = weights_of(capacity_request).to_dict()
    capacity_request.weights = parsed.to_dict()
    capacity_request.save(update_fields=["weights", "updated_at"])
    record_request(
        capacity_request=capacity_request,
        action="request.weights",
        user=user,
        before=before,
        after=capacity_request.weights,
        audience=buyer_only(buyer_org_id=capacity_request.buyer_id),
    )
    scoring_queue(capacity_request=capacity_request)
    return capacity_request


def _weight_message(exc: WeightError) -> str:
    text = str(exc)
    if exc.weight and text.startswith(f"{exc.weight}: "):
        text = text[len(exc.weight) + 2 :]
    return text[:1].upper() + text[1:] + "."
