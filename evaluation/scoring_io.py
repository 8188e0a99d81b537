"""Django models → the scoring package's plain input records, and the inputs' fingerprint.

Besides the frozen revision, scoring reads the provider's acknowledgement of the fixture and
terms (it can change without a new revision) and the questionnaire answers frozen with the
revision; the buyer's target clocks come from the handoff terms or the question set.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from acceptance.selectors.fixtures import acknowledgements_for_bids
from acceptance.selectors.pilot import uses_verified, verified_for_scoring
from bids import request_facts
from bids.models import BidRevision, CapacityRequest
from bids.models.requests import ALLOCATION_FIELDS, TERM_FIELDS, WORKLOAD_FIELDS
from engine.evidence.pilot_figures import FABRIC_BANDWIDTH
from engine.scoring import MODEL_VERSION, BidOffer, ProviderHistory, RequestProfile, Weights
from evaluation.history import history_as_of, history_fingerprint, provider_histories
from questionnaire.selectors import target_clock_minutes
from questionnaire.snapshot import scoring_answers

NOT_ACKNOWLEDGED = "not_acknowledged"
Ack = tuple[str, int]


def bid_label(revision: BidRevision) -> str:
    """The bid's key in a scoring result: stable across revisions, unique within a request."""
    return f"bid-{revision.bid_id}"


def request_profile(
    capacity_request: CapacityRequest, *, targets: Mapping[str, Mapping[str, float]] | None = None
) -> RequestProfile:
    """`targets`: the buyer's clocks in minutes, {"response": {"S1": 30, ...}, "restore": {...}}."""
    targets = targets or {}
    return RequestProfile(
        gpu_model=capacity_request.gpu_model,
        gpu_count=capacity_request.gpu_count,
        nodes=capacity_request.nodes,
        gpus_per_node=capacity_request.gpus_per_node,
        nvlink_domain_size=capacity_request.nvlink_domain_size,
        fabric=capacity_request.fabric,
        per_gpu_bandwidth_gbps=capacity_request.per_gpu_bandwidth_gbps,
        max_leaf_switches=capacity_request.max_leaf_switches,
        single_fabric_domain=capacity_request.single_fabric_domain,
        accepted_offer_kinds=tuple(capacity_request.accepted_offer_kinds or ()),
        min_mig_profile=capacity_request.min_mig_profile,
        scheduler=capacity_request.scheduler,
        acceptable_regions=tuple(capacity_request.acceptable_regions),
        reservation_start=capacity_request.reservation_start,
        reservation_end=capacity_request.reservation_end,
        checkpoint_write_seconds=float(capacity_request.checkpoint_write_seconds),
        restart_seconds=float(capacity_request.restart_seconds),
        run_length_hours=float(capacity_request.run_length_hours),
        target_response_minutes=dict(targets.get("response") or {}) or None,
        target_restore_minutes=dict(targets.get("restore") or {}) or None,
        checkpoint_interval_seconds=(
            capacity_request.checkpoint_interval_minutes * 60.0
            if capacity_request.checkpoint_interval_minutes is not None
            else None
        ),
    )


def bid_offer(
    revision: BidRevision,
    *,
    ack: Ack = (NOT_ACKNOWLEDGED, 0),
    history: ProviderHistory | None = None,
    verified: Mapping[str, float] | None = None,
) -> BidOffer:
    """`verified`: the figures a pilot verified, where the buyer scores on them; they replace
    the claims they measure (today the NICs' link rate, by the slowest fabric probe)."""
    answers = scoring_answers(revision.questionnaire)
    mtbf = revision.declared_node_mtbf_hours
    nic_rate = revision.nic_rate_gbps
    if verified and (fabric := verified.get(FABRIC_BANDWIDTH)) is not None:
        nic_rate = max(1, round(fabric))
    return BidOffer(
        label=bid_label(revision),
        price_per_gpu_hour=revision.price_per_gpu_hour or Decimal("0"),
        fees_usd=revision.fees_usd,
        egress_usd=revision.egress_usd,
        region=revision.region,
        available_start=revision.available_start or revision.bid.request.reservation_start,
        available_end=revision.available_end,
        gpu_model=revision.gpu_model,
        nodes=revision.nodes or 0,
        gpus_per_node=revision.gpus_per_node or 0,
        nvlink_domain_size=revision.nvlink_domain_size,
        fabric=revision.fabric,
        nics_per_node=revision.nics_per_node,
        nic_rate_gbps=nic_rate,
        rail_optimised=revision.rail_optimised,
        oversubscription_ratio=float(revision.oversubscription_ratio),
        leaf_switches=revision.leaf_switches,
        isolation_class=revision.isolation_class,
        mig_profile=revision.mig_profile,
        time_slice_replicas=revision.time_slice_replicas,
        scheduler=revision.scheduler,
        topology_aware=revision.topology_aware,
        gang_scheduling=revision.gang_scheduling,
        health_checks_auto_drain=revision.health_checks_auto_drain,
        uptime_pct=float(revision.uptime_pct),
        node_replacement_hours=float(revision.node_replacement_hours),
        spares_count=revision.spares_count,
        spares_location=revision.spares_location,
        coverage=revision.coverage,
        declared_node_mtbf_hours=float(mtbf) if mtbf is not None else None,
        site_readiness=revision.site_readiness,
        acknowledgement=ack[0],
        acknowledgement_exceptions=ack[1],
        execution_path_mismatch=answers.execution_path_mismatch,
        evidence_shared=answers.evidence_shared,
        response_minutes=answers.response_minutes,
        restore_minutes=answers.restore_minutes,
        clock_rows=answers.clock_rows,
        deal_breaker_failures=answers.deal_breaker_failures,
        missing_required_answers=answers.missing_required_answers,
        history=history,
    )


Targets = dict[str, dict[str, float]]


@dataclass(frozen=True)
class ScoringContext:
    """What scoring reads besides the revisions: target clocks, acknowledgements, and each
    provider's track record (by provider id). `agreed` is the handoff terms the target clocks
    come from, kept for the comparison's fact conflicts (the targets stand for them in the
    fingerprint). `verified`: the pilots' verified figures by bid id, where the buyer scores
    on them (empty otherwise); `uses_verified`: whether the buyer does (the figures stand for
    it in the fingerprint)."""

    targets: Targets | None
    acks: dict[int, Ack]
    histories: dict[int, ProviderHistory]
    agreed: dict[str, Any] | None
    verified: dict[int, dict[str, float]] = field(default_factory=dict)
    uses_verified: bool = False

    def fingerprint(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "targets": self.targets,
            "acks": {str(k): list(v) for k, v in sorted(self.acks.items())},
            "histories": history_fingerprint(self.histories),
        }
        if self.verified:  # absent while claims are scored: those runs keep their fingerprint
            out["verified"] = {str(k): v for k, v in sorted(self.verified.items())}
        return out


def scoring_context(
    *, capacity_request: CapacityRequest, bids: Sequence[tuple[int, int]]
) -> ScoringContext:
    """`bids`: (bid id, provider id) pairs. A constant number of queries for any bid count."""
    terms = request_facts.agreed_terms(capacity_request)
    use_verified = uses_verified(capacity_request=capacity_request)
    return ScoringContext(
        target_clock_minutes(capacity_request=capacity_request, terms=terms),
        acknowledgements_for_bids([bid_id for bid_id, _ in bids]),
        provider_histories(
            provider_ids=[provider for _, provider in bids], as_of=history_as_of(capacity_request)
        ),
        terms.values if terms is not None else None,
        verified_for_scoring(capacity_request=capacity_request, use_verified=use_verified),
        use_verified,
    )


def scoring_inputs(
    *, capacity_request: CapacityRequest, revisions: Sequence[BidRevision]
) -> tuple[RequestProfile, list[BidOffer], dict[str, Any]]:
    """The profile, the offers and what else the fingerprint must cover."""
    context = scoring_context(
        capacity_request=capacity_request, bids=[(r.bid_id, r.bid.provider_id) for r in revisions]
    )
    offers = [
        bid_offer(
            r,
            ack=context.acks.get(r.bid_id, (NOT_ACKNOWLEDGED, 0)),
            history=context.histories.get(r.bid.provider_id),
            verified=context.verified.get(r.bid_id),
        )
        for r in revisions
    ]
    return request_profile(capacity_request, targets=context.targets), offers, context.fingerprint()


def weights_of(capacity_request: CapacityRequest) -> Weights:
    return Weights.from_dict(capacity_request.weights or {})


def weights_hash(weights: Weights) -> str:
    return _sha256(weights.to_dict())


_PROFILE_FIELDS = (*ALLOCATION_FIELDS, *TERM_FIELDS, *WORKLOAD_FIELDS)


def inputs_fingerprint(
    *,
    capacity_request: CapacityRequest,
    revision_ids: Iterable[int],
    weights: Mapping[str, Any],
    extra: Mapping[str, Any] | None = None,
) -> str:
    """SHA-256 over everything scoring reads. Revisions are immutable, so their ids suffice."""
    return _sha256(
        {
            "model": MODEL_VERSION,
            "request": {name: getattr(capacity_request, name) for name in _PROFILE_FIELDS},
            "revisions": sorted(revision_ids),
            "weights": dict(weights),
            "extra": dict(extra or {}),
        }
    )


def _sha256(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()
