"""Award: the bid becomes a reservation that awaits the buyer's decision (services.decision)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from acceptance.audit import record_on_reservation
from acceptance.models import Acknowledgement, Fixture, FixtureVersion, Reservation
from bids.models import Bid, CapacityRequest, Lot
from bids.services.award import award_check, bid_award, bids_award
from core.errors import ServiceError
from core.sentences import MIN_SENTENCE, sentence_problem

#: A justification is at least one full sentence (the rule lives in core.sentences).
MIN_JUSTIFICATION = MIN_SENTENCE


def justification_problem(text: str, *, against: str) -> str | None:
    """Why `text` is not a written justification of an award that goes against the scores
    for the reason `against` names (None when it is one)."""
    return sentence_problem(text, ask=f"{against}: write why you award it")


def awarded_fixture_version(*, bid: Bid, lot: Lot | None = None) -> FixtureVersion | None:
    """The version the bid acknowledged last; else the current version. A lot with its own
    fixture is checked against that fixture; any other lot, against the request's."""
    fixture = Fixture.objects.filter(lot=lot).first() if lot is not None else None
    acks = Acknowledgement.objects.filter(bid=bid, fixture_version__isnull=False)
    ack = (
        acks.of(lot if fixture is not None else None)
        .select_related("fixture_version")
        .order_by("-at", "-pk")
        .first()
    )
    if ack is not None and ack.fixture_version is not None:
        return ack.fixture_version
    if fixture is None:
        fixture = Fixture.objects.filter(request_id=bid.request_id).first()
    if fixture is None:
        return None
    return FixtureVersion.objects.filter(fixture=fixture, number=fixture.current_number).first()


@transaction.atomic
def request_award(
    *,
    capacity_request: CapacityRequest,
    bid: Bid,
    user: User,
    justification: str = "",
    against_scores: str = "",
) -> Reservation:
    """The bid wins, every other submitted bid loses, and a reservation awaits acceptance.

    The caller says why the award goes against the scores, if it does (`against_scores`, in
    words): the scores live in a layer above this one. A justification given is kept either
    way."""
    capacity_request = CapacityRequest.objects.select_for_update().get(pk=capacity_request.pk)
    bid = Bid.objects.select_for_update().select_related("provider").get(pk=bid.pk)
    award_check(capacity_request=capacity_request, bid=bid, user=user)
    justification = justification.strip()
    if against_scores and (problem := justification_problem(justification, against=against_scores)):
        raise ValidationError({"justification": [problem]})
    version = awarded_fixture_version(bid=bid)
    if version is None:
        raise _fixture_refusal()
    revision = bid_award(capacity_request=capacity_request, bid=bid, user=user)
    reservation = Reservation.objects.create(
        request=capacity_request,
        bid=bid,
        bid_revision=revision,
        fixture_version=version,
        awarded_by=user,
        award_justification=justification or None,
    )
    record_on_reservation(
        reservation=reservation,
        action="reservation.open",
        user=user,
        after={
            "status": reservation.status,
            "bid_revision": revision.number,
            "fixture_version": version.number,
        },
        # Why the buyer awarded against the scores, when it did: the trail keeps it too.
        reason=justification,
    )
    return reservation


@dataclass(frozen=True)
class AwardPiece:
    """What one provider won on one lot: a reservation of its own."""

    bid: Bid
    lot: Lot | None  # None: the whole of a request without lots
    nodes: int
    price_per_gpu_hour: Decimal


def _fixture_refusal() -> ServiceError:
    return ServiceError(
        "Attach an acceptance fixture before awarding: the burn-in gate checks the evidence "
        "against it."
    )


@transaction.atomic
def request_award_split(
    *,
    capacity_request: CapacityRequest,
    pieces: list[AwardPiece],
    user: User,
    justification: str = "",
    against_scores: str = "",
) -> list[Reservation]:
    """A split award: one reservation per (lot, provider), each awaiting its own acceptance;
    every bid that won nothing loses. The caller says why the award goes against the scores,
    if it does, as for `request_award`."""
    capacity_request = CapacityRequest.objects.select_for_update().get(pk=capacity_request.pk)
    winners = {p.bid.pk for p in pieces}
    bids = list(Bid.objects.select_for_update().select_related("provider").filter(pk__in=winners))
    for bid in bids:
        award_check(capacity_request=capacity_request, bid=bid, user=user)
    justification = justification.strip()
    if against_scores and (problem := justification_problem(justification, against=against_scores)):
        raise ValidationError({"justification": [problem]})
    by_pk = {bid.pk: bid for bid in bids}
    versions = {
        (p.bid.pk, p.lot.pk if p.lot else None): awarded_fixture_version(
            bid=by_pk[p.bid.pk], lot=p.lot
        )
        for p in pieces
    }
    if None in versions.values():
        raise _fixture_refusal()
    revisions = bids_award(capacity_request=capacity_request, bids=bids, user=user)
    opened = []
    for piece in sorted(pieces, key=lambda p: (p.lot.number if p.lot else 0, p.bid.pk)):
        revision = revisions[piece.bid.pk]
        version = versions[(piece.bid.pk, piece.lot.pk if piece.lot else None)]
        assert version is not None
        whole = piece.lot is None
        reservation = Reservation.objects.create(
            request=capacity_request,
            bid=by_pk[piece.bid.pk],
            lot=piece.lot,
            lot_nodes=None if whole else piece.nodes,
            lot_price_per_gpu_hour=None if whole else piece.price_per_gpu_hour,
            bid_revision=revision,
            fixture_version=version,
            awarded_by=user,
            award_justification=justification or None,
        )
        record_on_reservation(
            reservation=reservation,
            action="reservation.open",
            user=user,
            after={
                "status": reservation.status,
                "bid_revision": revision.number,
                "fixture_version": version.number,
                "lot": piece.lot.number if piece.lot else None,
                "nodes": piece.nodes,
                "price_per_gpu_hour": str(piece.price_per_gpu_hour),
            },
            reason=justification,
        )
        opened.append(reservation)
    return opened
