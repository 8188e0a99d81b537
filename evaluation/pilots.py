"""The comparison's pilot section: each shortlisted (or already piloted) bid's claimed figures
beside those its pilot verified, the invitation form where one may be sent, and whether
scoring uses the verified figures. The buyer's read alone: the caller checked the bids are
visible to it (a sealed request shows no section)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from django import forms
from django.db.models import Q

from acceptance.models import PILOT_MAX_DAYS, Pilot
from acceptance.pilot_lifecycle import PILOT, PilotCase
from acceptance.selectors.pilot import (
    FigureRow,
    acknowledged_floors,
    figure_rows,
    uses_verified,
)
from bids.models import Bid, CapacityRequest
from bids.selectors import bid_rows_for_buyer
from core.limits import TEXT_LIMIT
from evaluation.anonymise import anonymous_labels
from orgs.selectors import actor_for


class PilotInviteForm(forms.Form):
    starts_on = forms.DateField(
        label="First day", widget=forms.DateInput(format="%Y-%m-%d", attrs={"type": "date"})
    )
    ends_on = forms.DateField(
        label="Last day",
        widget=forms.DateInput(format="%Y-%m-%d", attrs={"type": "date"}),
        help_text=f"At most {PILOT_MAX_DAYS} days after the first.",
    )
    instructions = forms.CharField(
        label="The application run",
        required=False,
        max_length=TEXT_LIMIT,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="What your application run is and how the provider starts it.",
    )

    @classmethod
    def for_bid(cls, bid: Bid, data: Any = None) -> PilotInviteForm:
        start = date.today() + timedelta(days=1)
        return cls(
            data,
            prefix=f"pilot-{bid.pk}",
            initial={"starts_on": start, "ends_on": start + timedelta(days=2)},
        )


@dataclass
class PilotRow:
    bid: Bid
    name: str
    pilot: Pilot | None
    figures: list[FigureRow]
    form: PilotInviteForm | None = None  # where the user may invite this bid now
    refusal: str = ""  # why not, where the bid is not invited and cannot be


@dataclass
class PilotSection:
    rows: list[PilotRow] = field(default_factory=list)
    use_verified: bool = False
    # While anonymised no row links its pilot's page: that page names the provider.
    anonymised: bool = False

    @property
    def any_verified(self) -> bool:
        return any(row.pilot is not None and row.pilot.figures for row in self.rows)


def pilot_section(
    *,
    capacity_request: CapacityRequest,
    user: Any,
    names: dict[int, str],
    anonymise: bool = False,
    bound: PilotInviteForm | None = None,
    bound_bid: int | None = None,
    use_verified: bool | None = None,
) -> PilotSection:
    """`names`: the comparison's label for each bid; `bound`: a refused invitation form to
    show again with what was typed, for `bound_bid`; `use_verified`: `uses_verified`, where
    the caller read it already (the comparison's live inputs)."""
    # The section lists shortlisted and piloted bids only, each with its pilot (one query).
    bids = bid_rows_for_buyer(
        capacity_request=capacity_request,
        only=Q(shortlisted=True) | Q(pilot__isnull=False),
        related=("pilot__run",),
        # What the rows and the invitation rule read of a bid (its draft terms are not).
        columns=("request", "status", "shortlisted", "provider__name", "pilot"),
    )
    pilots: dict[int, Pilot] = {
        bid.pk: pilot for bid, _ in bids if (pilot := getattr(bid, "pilot", None)) is not None
    }
    floors = acknowledged_floors(bid.pk for bid, _ in bids) if bids else {}
    actor = None
    rows = []
    # A bid the comparison has no column for yet (not scored) still goes by its label.
    labels = anonymous_labels(capacity_request=capacity_request) if anonymise else {}
    for bid, revision in bids:
        pilot = pilots.get(bid.pk)
        bid.request = capacity_request
        fallback = labels.get(bid.pk, "Unnamed bid") if anonymise else bid.provider.name
        figures = figure_rows(pilot, revision, floors=floors.get(bid.pk))
        row = PilotRow(bid, names.get(bid.pk, fallback), pilot, figures)
        if pilot is None:
            if actor is None:
                # Only the buyer invites: its role on the request decides for every bid.
                actor = actor_for(user=user, parties={"buyer": capacity_request.buyer_id})
            decision = PILOT.decide(PilotCase(bid), "invite", actor=actor)
            if decision.allowed:
                row.form = bound if bound_bid == bid.pk and bound else PilotInviteForm.for_bid(bid)
            else:
                row.refusal = decision.reason
        rows.append(row)
    if use_verified is None:
        use_verified = uses_verified(capacity_request=capacity_request)
    return PilotSection(rows, use_verified, anonymise)


def section_json(section: PilotSection, *, anonymise: bool = False) -> dict[str, Any]:
    """The API's form of the section: figures as numbers with their unit, claimed beside
    verified, and where each verified one was read (not the file's name while anonymised:
    a provider's file names may name it)."""
    return {
        "scoring_uses_verified": section.use_verified,
        "bids": [
            {
                "bid": None if anonymise else row.bid.pk,
                "name": row.name,
                "pilot": row.pilot.pk if row.pilot is not None and not anonymise else None,
                "figures": [f.to_json(anonymise=anonymise) for f in row.figures],
            }
            for row in section.rows
        ],
    }
