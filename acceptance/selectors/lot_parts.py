"""A lot's own fixture and handoff terms, and providers' acknowledgements of them.

A lot without its own fixture or terms shares the request's: nothing here applies to it, and
its reservations read the request's (acknowledged per bid, `lot` empty)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Q

from acceptance.models import Acknowledgement, Fixture, Reservation
from acceptance.selectors.fixtures import stale_reasons
from bids import selectors as bid_selectors
from bids.models import Bid, CapacityRequest, Lot
from contracts.models import HandoffTerms, HandoffTermsRevision
from engine.lots import LotInputError, read_offers


def own_fixture(lot: Lot) -> Fixture | None:
    """The lot's own fixture; None: it shares the request's."""
    return Fixture.objects.filter(lot=lot).first()


def own_terms(lot: Lot) -> HandoffTerms | None:
    """The lot's own handoff terms; None: it shares the request's."""
    return HandoffTerms.objects.filter(lot=lot).first()


@dataclass
class LotAckState:
    """One lot with its own fixture or terms, and a bid's newest acknowledgement of them."""

    lot: Lot
    fixture: Fixture | None
    terms: HandoffTerms | None
    ack: Acknowledgement | None
    stale_reasons: list[str] = field(default_factory=list)

    @property
    def stale(self) -> bool:
        return bool(self.stale_reasons)

    @property
    def current(self) -> bool:
        return self.ack is not None and not self.stale_reasons


@dataclass(frozen=True)
class LotPartRow:
    lot: Lot
    own_fixture: bool
    own_terms: bool


def lot_part_rows(*, capacity_request: CapacityRequest) -> list[LotPartRow]:
    """Each lot of the request and whether it has its own fixture and terms (one query)."""
    lots = Lot.objects.filter(request=capacity_request).select_related("fixture", "handoff_terms")
    return [
        LotPartRow(
            lot=lot,
            own_fixture=getattr(lot, "fixture", None) is not None,
            own_terms=getattr(lot, "handoff_terms", None) is not None,
        )
        for lot in lots.order_by("number")
    ]


def lots_with_own_parts(*, capacity_request: CapacityRequest) -> list[Lot]:
    """The request's lots that carry their own fixture or terms, in lot order."""
    own = Q(fixture__isnull=False) | Q(handoff_terms__isnull=False)
    return list(Lot.objects.filter(own, request=capacity_request).order_by("number"))


def lot_acknowledgements(*, bid: Bid) -> list[LotAckState]:
    """Each lot of the bid's request that has its own fixture or terms, with the bid's newest
    acknowledgement of that lot and why it no longer covers what the buyer asks now."""
    lots = Lot.objects.filter(request_id=bid.request_id).select_related("fixture", "handoff_terms")
    acks: dict[int, Acknowledgement] = {}
    for ack in (
        Acknowledgement.objects.filter(bid=bid, lot__isnull=False)
        .select_related("fixture_version", "terms_revision", "by")
        .order_by("lot_id", "-at", "-pk")
    ):
        assert ack.lot_id is not None
        acks.setdefault(ack.lot_id, ack)
    out = []
    for lot in lots.order_by("number"):
        fixture: Fixture | None = getattr(lot, "fixture", None)
        terms: HandoffTerms | None = getattr(lot, "handoff_terms", None)
        if fixture is None and terms is None:
            continue
        latest = acks.get(lot.pk)
        reasons = []
        if latest is not None:
            reasons = stale_reasons(
                acked_fixture=latest.fixture_version.number if latest.fixture_version else None,
                fixture_now=fixture.current_number if fixture is not None else None,
                acked_terms=latest.terms_revision.number if latest.terms_revision else None,
                terms_now=terms.version if terms is not None else None,
            )
        out.append(LotAckState(lot, fixture, terms, latest, reasons))
    return out


def lot_acknowledgement_rows_for_buyer(*, lot: Lot) -> list[tuple[Bid, LotAckState]]:
    """Each bid the buyer may see (none while sealed, never a draft) with its acknowledgement of
    the lot's own fixture and terms, in two queries whatever the number of bids."""
    fixture, terms = own_fixture(lot), own_terms(lot)
    if fixture is None and terms is None:
        return []
    bids = list(bid_selectors.bid_list_for_buyer(capacity_request=lot.request))
    latest: dict[int, Acknowledgement] = {}
    for ack in (
        Acknowledgement.objects.filter(lot=lot, bid__in=bids)
        .select_related("fixture_version", "terms_revision")
        .order_by("bid_id", "-at", "-pk")
    ):
        latest.setdefault(ack.bid_id, ack)
    rows = []
    for bid in bids:
        found = latest.get(bid.pk)
        reasons = []
        if found is not None:
            reasons = stale_reasons(
                acked_fixture=found.fixture_version.number if found.fixture_version else None,
                fixture_now=fixture.current_number if fixture is not None else None,
                acked_terms=found.terms_revision.number if found.terms_revision else None,
                terms_now=terms.version if terms is not None else None,
            )
        rows.append((bid, LotAckState(lot, fixture, terms, found, reasons)))
    return rows


def offered_lot_numbers(bid: Bid) -> set[int]:
    try:
        return {offer.lot for offer in read_offers(bid.lot_offers or [])}
    except LotInputError:
        return set()  # the bid's own checks word what is wrong with its offers


def lot_acknowledgements_missing(*, bid: Bid) -> list[str]:
    """Why the bid cannot be submitted yet: each lot it offers on whose own fixture or terms
    it has not acknowledged as they stand now (empty when none)."""
    offered = offered_lot_numbers(bid)
    problems = []
    for state in lot_acknowledgements(bid=bid):
        if state.lot.number not in offered or state.current:
            continue
        parts = " and ".join(
            what
            for what, part in (("fixture", state.fixture), ("handoff terms", state.terms))
            if part is not None
        )
        why = f" ({'; '.join(state.stale_reasons)})" if state.stale_reasons else ""
        problems.append(
            f"Lot {state.lot.number} has its own {parts}: acknowledge them on the bid's page "
            f"before submitting{why}."
        )
    return problems


def reservation_acknowledgement(*, reservation: Reservation) -> Acknowledgement | None:
    """The acknowledgement a reservation's contract stands on: for a lot with its own fixture
    or terms, the bid's newest acknowledgement of that lot; else of the request's."""
    lot = reservation.lot
    scoped = lot is not None and (own_fixture(lot) is not None or own_terms(lot) is not None)
    return (
        Acknowledgement.objects.of(lot if scoped else None)
        .filter(bid_id=reservation.bid_id)
        .select_related("fixture_version", "terms_revision")
        .order_by("-at", "-pk")
        .first()
    )


def reservation_terms_revision(*, reservation: Reservation) -> HandoffTermsRevision | None:
    """The handoff terms a reservation runs on: the lot's own where it has them, else the
    request's; the revision the provider acknowledged, else the latest."""
    lot = reservation.lot
    terms = own_terms(lot) if lot is not None else None
    acks = Acknowledgement.objects.filter(
        bid_id=reservation.bid_id, terms_revision__isnull=False
    ).select_related("terms_revision")
    ack = acks.of(lot if terms is not None else None).order_by("-at", "-pk").first()
    if ack is not None:
        return ack.terms_revision
    if terms is None:
        terms = HandoffTerms.objects.filter(request_id=reservation.request_id).first()
    return terms.revisions.order_by("-number").first() if terms is not None else None
