"""Writes of team evaluation: a buyer member's own view (weights and judgements), and the view
an award followed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.core.exceptions import NON_FIELD_ERRORS
from django.db import transaction

from audit.services import buyer_only
from bids.audit import record_request
from bids.choices import BidStatus
from bids.lifecycle import REQUEST, request_actor
from bids.models import Bid, CapacityRequest
from core.errors import ServiceError
from engine.scoring import CRITERIA, WeightError, Weights
from evaluation.models import AwardBasis, EvaluatorView, Judgement
from evaluation.team.recombine import JUDGED, JUDGEMENT_MAX, JUDGEMENT_MIN, VIEW_WEIGHTS
from evaluation.team.selectors import ViewRanking

MAX_COMMENT = 2000


@dataclass(frozen=True)
class JudgementInput:
    """One rating as typed: `score` is raw (blank or None: not rated)."""

    bid_id: int
    criterion: str
    score: object
    comment: str = ""

    @property
    def field(self) -> str:
        """The name errors are reported under (the page's field, the API's key)."""
        return judgement_field(self.bid_id, self.criterion)


def judgement_field(bid_id: int, criterion: str) -> str:
    return f"{criterion}_{bid_id}"


def weight_problem(name: str, raw: object) -> str | None:
    """Why `raw` is not a weight, worded as the request's weights word it (None when it is)."""
    probe = name if name in CRITERIA else CRITERIA[0]
    try:
        Weights.from_dict({probe: raw})
    except WeightError as exc:
        text = str(exc).removeprefix(f"{probe}: ")
        return text[:1].upper() + text[1:] + "."
    return None


def _clean_weights(weights: Mapping[str, object], errors: dict[str, list[str]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for name in VIEW_WEIGHTS:
        raw = weights.get(name)
        if name in JUDGED and raw in (None, ""):
            raw = 0  # a judged criterion left blank is not weighed
        if (problem := weight_problem(name, raw)) is not None:
            errors.setdefault(name, []).append(problem)
            continue
        out[name] = float(str(raw).strip()) if isinstance(raw, str) else float(raw)  # type: ignore[arg-type]
    if not errors and not any(out.values()):
        errors.setdefault(NON_FIELD_ERRORS, []).append("At least one weight must be above zero.")
    return out


def _clean_score(raw: object) -> int | str | None:
    """The rating, None when not rated, or the problem in words."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    text = str(raw).strip()
    if isinstance(raw, bool) or not text.lstrip("-").isdigit():
        return f"Rate from {JUDGEMENT_MIN} to {JUDGEMENT_MAX} in whole numbers, got {text!r}."
    value = int(text)
    if not JUDGEMENT_MIN <= value <= JUDGEMENT_MAX:
        return f"Rate from {JUDGEMENT_MIN} to {JUDGEMENT_MAX}, got {value}."
    return value


@transaction.atomic
def evaluator_view_save(
    *,
    capacity_request: CapacityRequest,
    user: User,
    weights: Mapping[str, object],
    judgements: Sequence[JudgementInput] = (),
) -> EvaluatorView:
    """Store the member's own weights and ratings (replacing theirs), after checking each."""
    REQUEST.allow(capacity_request, "evaluate", actor=request_actor(capacity_request, user))
    errors: dict[str, list[str]] = {}
    clean = _clean_weights(weights, errors)
    bids = set(
        Bid.objects.filter(
            request=capacity_request, status=BidStatus.SUBMITTED, latest_revision_number__gt=0
        ).values_list("pk", flat=True)
    )
    rows: dict[tuple[int, str], tuple[int, str]] = {}
    for item in judgements:
        if item.criterion not in JUDGED:
            errors.setdefault(item.field, []).append(
                f"Unknown criterion {item.criterion!r}: judge one of {', '.join(JUDGED)}."
            )
            continue
        if item.bid_id not in bids:
            errors.setdefault(item.field, []).append(
                f"Bid {item.bid_id} is not a submitted bid on this request."
            )
            continue
        score = _clean_score(item.score)
        comment = (item.comment or "").strip()
        if isinstance(score, str):
            errors.setdefault(item.field, []).append(score)
        elif len(comment) > MAX_COMMENT:
            errors.setdefault(f"{item.field}_comment", []).append(
                f"Keep the comment under {MAX_COMMENT:,} characters (it has {len(comment):,})."
            )
        elif score is None and comment:
            errors.setdefault(item.field, []).append("Rate the bid to keep your comment.")
        elif score is not None:
            rows[(item.bid_id, item.criterion)] = (score, comment)
    if errors:
        raise ServiceError(errors)
    view, created = EvaluatorView.objects.update_or_create(
        request=capacity_request, evaluator=user, defaults={"weights": clean}
    )
    view.judgements.all().delete()
    Judgement.objects.bulk_create(
        Judgement(view=view, bid_id=bid_id, criterion=criterion, score=score, comment=comment)
        for (bid_id, criterion), (score, comment) in rows.items()
    )
    # The buyer's own trail: it names the evaluator, which providers never see.
    record_request(
        capacity_request=capacity_request,
        action="request.evaluator_view",
        user=user,
        after={"weights": clean, "judgements": len(rows), "new": created},
        audience=buyer_only(buyer_org_id=capacity_request.buyer_id),
    )
    return view


def award_basis_record(
    *, capacity_request: CapacityRequest, bid: Bid, user: User, ranking: ViewRanking
) -> AwardBasis:
    """Record which ranking the award followed, for the buyer's page, trail and API."""
    first = ranking.placed[0] if ranking.placed else None
    basis = AwardBasis.objects.create(
        request=capacity_request,
        view=ranking.kind,
        evaluator_id=ranking.evaluator_id,
        label=ranking.label,
        first_in_view=first.name if first else "",
        followed=first is not None and first.key == str(bid.pk),
    )
    record_request(
        capacity_request=capacity_request,
        action="request.award_view",
        user=user,
        after={
            "view": basis.view,
            "label": basis.label,
            "first_in_view": basis.first_in_view,
            "followed": basis.followed,
        },
        audience=buyer_only(buyer_org_id=capacity_request.buyer_id),
    )
    return basis
