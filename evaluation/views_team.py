"""Team evaluation: what the comparison page's section shows (every evaluator's ranking, the
consensus) and the member's own weights and ratings form, on a page of its own (the view is
`evaluation.views.team_view`; the rules are `evaluation.team`)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest

from bids.lifecycle import REQUEST, request_actor
from evaluation.anonymise import labels_query
from evaluation.comparison import Comparison
from evaluation.team.recombine import JUDGED, JUDGEMENT_MAX, JUDGEMENT_MIN, VIEW_WEIGHTS
from evaluation.team.selectors import (
    JUDGED_LABELS,
    WEIGHT_LABELS,
    TeamEvaluation,
    scored_from_columns,
    team_evaluation,
)
from evaluation.team.services import JudgementInput, judgement_field
from orgs.access import user_of

RATINGS = [("", "not rated"), *((str(n), str(n)) for n in range(JUDGEMENT_MIN, JUDGEMENT_MAX + 1))]


class TeamViewForm(forms.Form):
    """Raw text per weight and rating: the service words the errors, as for the request's
    weights. One rating and one comment per judged criterion and qualified bid."""

    def __init__(self, *args: Any, bids: list[tuple[int, str]], **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "team_%s")  # apart from the request's weights form's ids
        super().__init__(*args, **kwargs)
        self.bids = bids
        self.leading = FORM_LEADING_BIDS
        self.unshown = 0  # qualified bids left out of the form (see _form)
        for name in VIEW_WEIGHTS:
            self.fields[name] = forms.CharField(
                label=WEIGHT_LABELS[name],
                required=name not in JUDGED,
                widget=forms.NumberInput(attrs={"min": "0", "step": "any"}),
            )
        for bid_id, bid_name in bids:
            for criterion in JUDGED:
                field = judgement_field(bid_id, criterion)
                self.fields[field] = forms.CharField(
                    label=f"{bid_name}: {JUDGED_LABELS[criterion]}",
                    required=False,
                    widget=forms.Select(choices=RATINGS),  # the service words a bad rating
                )
                self.fields[f"{field}_comment"] = forms.CharField(
                    label="Comment",
                    required=False,
                    widget=forms.Textarea(attrs={"rows": 2}),
                )

    def weight_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in VIEW_WEIGHTS]

    def rating_rows(self) -> list[dict[str, Any]]:
        """The rating fields grouped by bid, for the template."""
        return [
            {
                "name": bid_name,
                "fields": [
                    (
                        self[judgement_field(bid_id, c)],
                        self[f"{judgement_field(bid_id, c)}_comment"],
                    )
                    for c in JUDGED
                ],
            }
            for bid_id, bid_name in self.bids
        ]

    def judgements(self) -> list[JudgementInput]:
        data = self.cleaned_data
        return [
            JudgementInput(
                bid_id=bid_id,
                criterion=c,
                score=data.get(judgement_field(bid_id, c)),
                comment=data.get(f"{judgement_field(bid_id, c)}_comment", ""),
            )
            for bid_id, _ in self.bids
            for c in JUDGED
        ]


#: The form rates the leading qualified bids and every bid the member has rated already; a link
#: opens it to all of them. At 200 bids the full form had 800 fields, which nobody fills in and
#: which were half the page's time.
FORM_LEADING_BIDS = 6


def _form(
    cmp: Comparison, team: TeamEvaluation, data: Any = None, *, every: bool = False
) -> TeamViewForm:
    mine = team.mine
    judgements = list(mine.judgements.all()) if mine is not None else []
    rated = {j.bid_id for j in judgements}

    def shown(position: int, bid_id: int) -> bool:
        # A posted form keeps the bids it showed (a browser sends every rating select).
        posted = data is not None and any(judgement_field(bid_id, c) in data for c in JUDGED)
        return every or position < FORM_LEADING_BIDS or bid_id in rated or posted

    qualified = cmp.qualified_columns
    bids = [(c.bid_id, c.name) for i, c in enumerate(qualified) if shown(i, c.bid_id)]
    weights = mine.weights if mine else cmp.request.weights
    initial: dict[str, str] = {n: f"{float(weights.get(n, 0)):g}" for n in VIEW_WEIGHTS}
    for j in judgements:
        initial[judgement_field(j.bid_id, j.criterion)] = str(j.score)
        initial[f"{judgement_field(j.bid_id, j.criterion)}_comment"] = j.comment
    form = TeamViewForm(data, bids=bids, initial=initial)
    form.unshown = len(qualified) - len(bids)
    return form


def team_context(request: HttpRequest, cmp: Comparison) -> dict[str, Any]:
    """What the comparison page's team section shows; empty while there is nothing scored. The
    form is on the member's own page: ~30 widgets were a third of the comparison page's time."""
    if not cmp.columns:
        return {}
    req = cmp.request
    team = team_evaluation(
        capacity_request=req, bids=scored_from_columns(cmp.columns), viewer=request.user
    )
    decision = REQUEST.decide(req, "evaluate", actor=request_actor(req, user_of(request)))
    return {
        "team": team,
        "team_may_rate": decision.allowed,
        "team_blocker": "" if decision.allowed else decision.reason,
    }


def team_form_context(request: HttpRequest, cmp: Comparison, data: Any = None) -> dict[str, Any]:
    """The member's own page: the section's reads, and the form while they may evaluate."""
    context = team_context(request, cmp)
    if context.get("team_may_rate"):
        every = request.GET.get("rate") == "all"
        context["team_form"] = _form(cmp, context["team"], data, every=every)
        context["rate_all_query"] = labels_query(anonymised=cmp.anonymised, rate="all")
    return context
