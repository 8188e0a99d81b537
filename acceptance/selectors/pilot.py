"""Reads for pilots. Tenancy: the request's buyer (once its bids are visible to it) and the
invited provider see a pilot; a rival provider and everyone else get a 404, in pages,
downloads and the API alike. A rival never reads another bid's verified figures."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet
from django.http import Http404

from acceptance.models import Acknowledgement, BurnInRun, Evidence, Pilot, PilotScoring
from bids.models import Bid, BidRevision, CapacityRequest
from engine.evidence.pilot_figures import (
    BUS_BANDWIDTH,
    FABRIC_BANDWIDTH,
    FABRIC_LATENCY,
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
    # Where the claim comes from: the bid's own terms, or the fixture floor it acknowledged.
    claimed_from: str = ""

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
            "claimed_from": self.claimed_from or None,
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


CLAIMED_IN_BID = "bid"
CLAIMED_BY_FIXTURE = "fixture"
#: The fixture floors a bid claims by acknowledging the fixture without an exception on them:
#: figure key -> the path of its threshold in the spec.
FLOOR_CLAIMS = {
    BUS_BANDWIDTH: ("busbw_gbps", "all_reduce"),
    FABRIC_LATENCY: ("fabric_p99_latency_us_max",),
}


def acknowledged_floors(bid_ids: Iterable[int]) -> dict[int, dict[str, float]]:
    """Each bid's claims through the fixture version it acknowledged last (one query): the
    floors of `FLOOR_CLAIMS` the spec sets and the acknowledgement takes no exception to."""
    rows = (
        Acknowledgement.objects.of_request()
        .filter(bid_id__in=list(bid_ids), fixture_version__isnull=False)
        .order_by("bid_id", "-at", "-pk")
        .values_list("bid_id", "exceptions", "fixture_version__spec")
    )
    out: dict[int, dict[str, float]] = {}
    for bid_id, exceptions, spec in rows:
        if bid_id in out:
            continue  # an older acknowledgement of the same bid
        excepted = {str(e.get("field") or "") for e in exceptions or [] if isinstance(e, dict)}
        floors: dict[str, float] = {}
        for key, path in FLOOR_CLAIMS.items():
            value: Any = (spec or {}).get("thresholds") or {}
            for part in path:
                value = value.get(part) if isinstance(value, dict) else None
            field = ".".join(("thresholds", *path))
            if isinstance(value, int | float) and value > 0 and field not in excepted:
                floors[key] = float(value)
        out[bid_id] = floors
    return out


def _claims(revision: BidRevision | None, floors: dict[str, float]) -> dict[str, tuple[float, str]]:
    """The figures a bid claims: its NICs' link rate in its terms, and the fixture floors it
    acknowledged."""
    claims = {key: (value, CLAIMED_BY_FIXTURE) for key, value in floors.items()}
    if revision is not None:
        claims[FABRIC_BANDWIDTH] = (float(revision.nic_rate_gbps), CLAIMED_IN_BID)
    return claims


def figure_rows(
    pilot: Pilot | None,
    revision: BidRevision | None,
    evidence: Iterable[Evidence] = (),
    floors: dict[str, float] | None = None,
) -> list[FigureRow]:
    """Every figure, claimed beside verified; `evidence`: the pilot's files, to link each
    figure to the one it was read from; `floors`: the bid's `acknowledged_floors`."""
    verified = {}
    if pilot is not None:
        verified = {f.key: f for f in (Figure.from_json(d) for d in pilot.figures)}
    claims = _claims(revision, floors or {})
    ids = {e.ref: e.pk for e in evidence}
    rows = []
    for spec in FIGURES:
        figure = verified.get(spec.key)
        source = ids.get(figure.ref) if figure is not None else None
        claimed, claimed_from = claims.get(spec.key, (None, ""))
        rows.append(FigureRow(spec, claimed, figure, source, claimed_from))
    return rows


def pilot_candidates(*, capacity_request: CapacityRequest) -> QuerySet[Bid]:
    """The bids a pilot is for: shortlisted ones, and any already invited."""
    return (
        Bid.objects.filter(request=capacity_request)
        .filter(Q(shortlisted=True) | Q(pilot__isnull=False))
        .select_related("provider")
        .order_by("pk")
    )


def verified_for_scoring(
    *, capacity_request: CapacityRequest, use_verified: bool | None = None
) -> dict[int, dict[str, float]]:
    """Each piloted bid's verified figures by key, where the buyer scores on them; else {}.
    `use_verified`: `uses_verified`, where the caller read it already."""
    if use_verified is None:
        use_verified = uses_verified(capacity_request=capacity_request)
    if not use_verified:
        return {}
    out: dict[int, dict[str, float]] = {}
    for bid_id, figures in Pilot.objects.filter(bid__request=capacity_request).values_list(
        "bid_id", "figures"
    ):
        values = {str(f["key"]): float(f["value"]) for f in figures or []}
        if values:
            out[bid_id] = values
    return out
