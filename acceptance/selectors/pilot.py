"""Reads for pilots. Tenancy: the request's buyer (once its bids are visible to it) and the
invited provider see a pilot; a rival provider and everyone else get a 404, in pages,
downloads and the API alike. A rival never reads another bid's verified figures."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet
from django.http import Http404

from acceptance.models import BurnInRun, Evidence, Pilot, PilotScoring
from bids.models import Bid, BidRevision, CapacityRequest
from engine.evidence.pilot_figures import (
    FABRIC_BANDWIDTH,
    FIGURES,
    Figure,
    FigureSpec,
    against_claim,
    show,
)
from engine.formatting import DASH, percent


def _party(prefix: str, org_ids: Iterable[int]) -> Q:
    """The invited provider, or the buyer while the request's bids are not sealed from it."""
    ids = list(org_ids)
    hidden = CapacityRequest.objects.bids_hidden_from_buyer().values("pk")
    buyer = Q(**{f"{prefix}bid__request__buyer_id__in": ids}) & ~Q(
        **{f"{prefix}bid__request__in": hidden}
    )
    return buyer | Q(**{f"{prefix}bid__provider_id__in": ids})


def pilot_list(*, org_ids: Iterable[int]) -> QuerySet[Pilot]:
    return (
        Pilot.objects.filter(_party("", org_ids))
        .select_related("bid__request__buyer", "bid__provider", "run", "fixture_version")
        .order_by("-invited_at", "-pk")
    )


def pilot_get(*, org_ids: Iterable[int], pk: int) -> Pilot:
    try:
        return pilot_list(org_ids=org_ids).select_related("invited_by").get(pk=pk)
    except Pilot.DoesNotExist:
        raise Http404 from None


def pilot_run(pilot: Pilot) -> BurnInRun:
    return BurnInRun.objects.select_related("pilot__fixture_version").get(pilot=pilot)


def pilot_evidence_get(*, org_ids: Iterable[int], pk: int) -> Evidence:
    try:
        return (
            Evidence.objects.select_related("run__pilot__bid__request")
            .filter(run__pilot__isnull=False)
            .filter(_party("run__pilot__", org_ids))
            .get(pk=pk)
        )
    except Evidence.DoesNotExist:
        raise Http404 from None


def is_buyer_of_pilot(pilot: Pilot, org_id: int | None) -> bool:
    return org_id is not None and pilot.bid.request.buyer_id == org_id


def uses_verified(*, capacity_request: CapacityRequest) -> bool:
    return PilotScoring.objects.filter(request=capacity_request, use_verified=True).exists()


@dataclass(frozen=True)
class FigureRow:
    """One figure of one bid: what the bid claims and what its pilot verified."""

    spec: FigureSpec
    claimed: float | None
    verified: Figure | None
    evidence_id: int | None = None  # the file it was read from, where the reader may open it

    @property
    def share(self) -> float | None:
        if self.verified is None:
            return None
        return against_claim(self.spec, self.verified.value, self.claimed)

    @property
    def share_text(self) -> str:
        """'96 %': the verified figure as a share of the claim (below 100 % falls short)."""
        share = self.share
        return DASH if share is None else percent(share * 100, places=0)

    def to_json(self, *, anonymise: bool = False) -> dict[str, Any]:
        """As the API prints it; while the buyer anonymises the bids, without the file's name
        (a provider's file names may name it)."""
        figure = self.verified
        return {
            "key": self.spec.key,
            "label": self.spec.label,
            "unit": self.spec.unit,
            "claimed": self.claimed,
            "verified": figure.value if figure else None,
            "source": {
                "file": None if anonymise else figure.ref,
                "line": figure.line,
                "where": figure.where,
            }
            if figure
            else None,
        }

    @property
    def claimed_text(self) -> str:
        return show(self.spec, self.claimed)

    @property
    def verified_text(self) -> str:
        return show(self.spec, self.verified.value if self.verified else None)


def _claims(revision: BidRevision | None) -> dict[str, float]:
    """The figures a bid states itself: today its NICs' link rate."""
    if revision is None:
        return {}
    return {FABRIC_BANDWIDTH: float(revision.nic_rate_gbps)}


def figure_rows(
    pilot: Pilot | None,
    revision: BidRevision | None,
    evidence: Iterable[Evidence] = (),
) -> list[FigureRow]:
    """Every figure, claimed beside verified; `evidence`: the pilot's files, to link each
    figure to the one it was read from."""
    verified = {}
    if pilot is not None:
        verified = {f.key: f for f in (Figure.from_json(d) for d in pilot.figures)}
    claims = _claims(revision)
    ids = {e.ref: e.pk for e in evidence}
    rows = []
    for spec in FIGURES:
        figure = verified.get(spec.key)
        source = ids.get(figure.ref) if figure is not None else None
        rows.append(FigureRow(spec, claims.get(spec.key), figure, source))
    return rows


def pilots_by_bid(*, capacity_request: CapacityRequest) -> dict[int, Pilot]:
    """The request's pilots by bid id, for its buyer's comparison (the caller checked the
    buyer may see the bids)."""
    pilots = Pilot.objects.filter(bid__request=capacity_request).select_related("run")
    return {p.bid_id: p for p in pilots}


def pilot_candidates(*, capacity_request: CapacityRequest) -> QuerySet[Bid]:
    """The bids a pilot is for: shortlisted ones, and any already invited."""
    return (
        Bid.objects.filter(request=capacity_request)
        .filter(Q(shortlisted=True) | Q(pilot__isnull=False))
        .select_related("provider")
        .order_by("pk")
    )


def verified_for_scoring(*, capacity_request: CapacityRequest) -> dict[int, dict[str, float]]:
    """Each piloted bid's verified figures by key, where the buyer scores on them; else {}."""
    if not uses_verified(capacity_request=capacity_request):
        return {}
    out: dict[int, dict[str, float]] = {}
    for bid_id, figures in Pilot.objects.filter(bid__request=capacity_request).values_list(
        "bid_id", "figures"
    ):
        values = {str(f["key"]): float(f["value"]) for f in figures or []}
        if values:
            out[bid_id] = values
    return out
