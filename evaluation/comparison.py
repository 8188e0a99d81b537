"""The comparison matrix as plain data: the page, the charts and both exports read this one build.

Reads a constant number of queries whatever the number of bids: the live inputs' revision ids,
the run for those inputs, the last finished run, and its scores with their revisions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bids.choices import RequestStatus
from bids.models import BidRevision, CapacityRequest
from core.kept import kept
from engine.domain import PALETTE
from engine.scoring import CRITERIA
from engine.scoring.reliability import MTBF_DEFAULT, MTBF_REALISED
from evaluation.anonymise import anonymous_labels, hide_identifying
from evaluation.comparison_rows import ROW_GROUPS, Facts, RowSpec, explain_steps
from evaluation.models import BidScore, ScoringRun, ScoringStatus
from evaluation.services import scoring_fingerprint
from questionnaire.conflicts import Conflict
from questionnaire.selectors import agreed_terms, revision_conflicts
from questionnaire.snapshot import NO_QUESTIONNAIRE, scoring_answers

CRITERION_LABELS = {
    "effective_cost": "Effective cost",
    "fabric_placement": "Fabric and placement",
    "incident_sla": "Incident response and SLA",
    "acceptance_terms": "Acceptance and evidence terms",
    "delivery_risk": "Delivery risk",
}
#: Bump when what a comparison holds changes shape: entries built by older code are not read.
PRESENTATION_VERSION = 1
#: A finished run's presentation is kept this long after it was last built (it never changes).
PRESENTATION_SECONDS = 24 * 3600
#: Goodput curves beyond this many bids make the chart unreadable; the best-ranked are drawn.
MAX_CURVES = 12
# The matrix group of criterion scores, rank and draw share (the summary PDF prints them elsewhere).
SCORES_GROUP = "Scores"

# What the page says about the scores it shows.
SEALED, NO_BIDS, CURRENT, PENDING, FAILED, OUTDATED = (
    "sealed",
    "no_bids",
    "current",
    "pending",
    "failed",
    "outdated",
)


@dataclass
class Cell:
    display: str
    value: float | str | None
    best: bool = False
    note: str = ""
    explain: list[dict[str, str]] = field(default_factory=list)
    css: str = ""


@dataclass
class Row:
    key: str
    label: str
    unit: str
    cells: list[Cell]
    better: str | None = None

    @property
    def heading(self) -> str:
        return f"{self.label} ({self.unit})" if self.unit else self.label


@dataclass
class Group:
    title: str
    rows: list[Row]


@dataclass
class Column:
    name: str
    score: BidScore
    revision: BidRevision
    css: str = ""
    steps: dict[str, dict[str, str]] = field(default_factory=dict)
    facts: Facts = field(default_factory=lambda: Facts(NO_QUESTIONNAIRE))
    reasons_shown: list[str] | None = None  # anonymised: the reasons, scrubbed
    conflicts: list[Conflict] = field(default_factory=list)  # one fact stated with two values

    @property
    def qualified(self) -> bool:
        return self.score.qualified

    @property
    def reasons(self) -> list[str]:
        if self.reasons_shown is not None:
            return self.reasons_shown
        return [d["message"] for d in self.score.disqualifications]

    @property
    def conflict_messages(self) -> list[str]:
        """Anonymised, without the quotes: they are the provider's own words."""
        if self.reasons_shown is not None:
            return [c.without_quote for c in self.conflicts]
        return [c.message for c in self.conflicts]

    @property
    def mtbf_default(self) -> bool:
        return self.score.cost.get("node_mtbf_source") == MTBF_DEFAULT

    @property
    def mtbf_realised(self) -> bool:
        return self.score.cost.get("node_mtbf_source") == MTBF_REALISED


@dataclass
class Comparison:
    request: CapacityRequest
    state: str
    anonymised: bool
    current_run: ScoringRun | None = None
    shown_run: ScoringRun | None = None
    columns: list[Column] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    charts: dict[str, Any] = field(default_factory=dict)
    sensitivity: dict[str, Any] = field(default_factory=dict)
    # The cache key of the presentation above ("" when it was not cached): what is printed from
    # it alone (the matrix body) can be kept under the same key.
    presentation_key: str = ""

    @property
    def stale(self) -> bool:
        """Numbers on screen that are not for the current inputs."""
        return self.shown_run is not None and self.state != CURRENT

    @property
    def qualified_columns(self) -> list[Column]:
        return [c for c in self.columns if c.qualified]

    @property
    def disqualified_columns(self) -> list[Column]:
        return [c for c in self.columns if not c.qualified]

    @property
    def conflicted_columns(self) -> list[Column]:
        return [c for c in self.columns if c.conflicts]

    @property
    def any_default_mtbf(self) -> bool:
        return any(c.mtbf_default for c in self.columns)

    @property
    def any_realised_mtbf(self) -> bool:
        return any(c.mtbf_realised for c in self.columns)


def comparison_state(*, request: CapacityRequest) -> tuple[str, ScoringRun | None]:
    """Where scoring stands for the request's current inputs (2 queries)."""
    if request.bids_hidden_from_buyer:
        return SEALED, None
    fingerprint = scoring_fingerprint(request=request)
    run = (
        ScoringRun.objects.filter(request=request, fingerprint=fingerprint).defer("result").first()
    )
    if run is None:
        return OUTDATED, None
    if run.status == ScoringStatus.DONE:
        return (CURRENT if run.bid_count else NO_BIDS), run
    return (FAILED if run.status == ScoringStatus.FAILED else PENDING), run


def comparison_for_buyer(*, request: CapacityRequest, anonymise: bool = False) -> Comparison:
    anonymise = anonymise and request.status != RequestStatus.AWARDED
    state, current = comparison_state(request=request)
    out = Comparison(request=request, state=state, anonymised=anonymise, current_run=current)
    if state == SEALED:
        return out
    if current is not None and current.status == ScoringStatus.DONE:
        shown: ScoringRun | None = current
    else:
        shown = (
            ScoringRun.objects.filter(request=request, status=ScoringStatus.DONE)
            .defer("result")
            .order_by("-finished_at", "-pk")
            .first()
        )
    out.shown_run = shown
    if shown is None:
        return out
    key = _presentation_key(request, shown, anonymise)

    def build() -> tuple[Any, ...]:
        _present(out, request, shown, anonymise)
        return (out.columns, out.groups, out.sensitivity, out.charts)

    built = kept(key, build, seconds=PRESENTATION_SECONDS, weight=shown.bid_count)
    out.columns, out.groups, out.sensitivity, out.charts = built
    out.presentation_key = key
    return out


def _presentation_key(request: CapacityRequest, run: ScoringRun, anonymise: bool) -> str:
    """A finished run never changes, so its presentation is built once and kept under a key
    no other run can have: a new run, the other labelling or a new presentation version is
    another key (invalidated by construction). The finishing instant keeps a test database
    that reuses ids from ever meeting another test's entry."""
    finished = run.finished_at.timestamp() if run.finished_at else 0
    return (
        f"comparison:v{PRESENTATION_VERSION}:{request.pk}:{run.pk}:{finished}:"
        f"{'anonymous' if anonymise else 'named'}"
    )


def _present(out: Comparison, request: CapacityRequest, shown: ScoringRun, anonymise: bool) -> None:
    """The matrix, charts and sensitivity of a finished run, as the buyer's side sees it."""
    scores = list(shown.scores.select_related("revision__bid__provider").order_by("position"))
    if not scores:
        return
    names = _names(request, scores, anonymise)
    acks = _acknowledgements([s.revision.bid_id for s in scores])
    agreed = agreed_terms(request=request)
    out.columns = [
        Column(
            name=names[s.pk],
            score=s,
            revision=s.revision,
            steps=explain_steps(s.cost),
            facts=Facts(scoring_answers(s.revision.questionnaire), *acks[s.revision.bid_id]),
            conflicts=revision_conflicts(revision=s.revision, agreed=agreed),
        )
        for s in scores
    ]
    out.groups = [
        Group(title, [_row(spec, out.columns) for spec in specs]) for title, specs in ROW_GROUPS
    ]
    out.groups.append(_score_group(out.columns, shown.weights))
    _set_apart_disqualified(out)
    if anonymise:
        hide_identifying(out)
    out.sensitivity = _sensitivity(shown, out.columns)
    out.charts = _charts(out.columns, shown.weights, out.sensitivity)


def _acknowledgements(bid_ids: list[int]) -> dict[int, tuple[str, int]]:
    """The acknowledgement scoring reads, for every bid in one query."""
    from acceptance.selectors.fixtures import acknowledgements_for_bids

    return acknowledgements_for_bids(bid_ids)


def _set_apart_disqualified(view: Comparison) -> None:
    """Grey disqualified columns; a divider before the first when ranked bids precede it."""
    first = next((i for i, c in enumerate(view.columns) if not c.qualified), None)
    for i, col in enumerate(view.columns):
        if not col.qualified:
            col.css = "dq first-dq" if i == first and i > 0 else "dq"
    for group in view.groups:
        for row in group.rows:
            for cell, col in zip(row.cells, view.columns, strict=True):
                cell.css = " ".join(filter(None, ["best" if cell.best else "", col.css]))


def _names(request: CapacityRequest, scores: Sequence[BidScore], anonymise: bool) -> dict[int, str]:
    if not anonymise:
        return {s.pk: s.revision.bid.provider.name for s in scores}
    # Letters stay with each bid for the request's lifetime, whatever the ranking or weights.
    labels = anonymous_labels(request=request)
    return {s.pk: labels[s.revision.bid_id] for s in scores}


def _row(spec: RowSpec, columns: Sequence[Column]) -> Row:
    cells = [spec.cell(c.revision, c.score.cost, c.steps, c.facts) for c in columns]
    row = Row(spec.key, spec.label, spec.unit, cells, spec.better)
    _mark_best(row, columns)
    return row


def _mark_best(row: Row, columns: Sequence[Column]) -> None:
    if row.better is None:
        return
    values = [
        cell.value
        for cell, col in zip(row.cells, columns, strict=True)
        if col.qualified and isinstance(cell.value, int | float)
    ]
    if len(values) < 2 or min(values) == max(values):
        return
    target = min(values) if row.better == "low" else max(values)
    for cell, col in zip(row.cells, columns, strict=True):
        cell.best = col.qualified and cell.value == target


def _score_group(columns: Sequence[Column], weights: dict[str, float]) -> Group:
    total_w = sum(weights.values()) or 1.0
    rows = []
    for index, name in enumerate(CRITERIA):
        share = weights.get(name, 0.0) / total_w
        cells = []
        for col in columns:
            crit = col.score.criteria[index]
            cells.append(
                Cell(
                    f"{crit['score']:.1f}",
                    round(crit["score"], 1),
                    explain=[
                        {"label": "Why", "formula": crit["rationale"], "value": ""},
                        {
                            "label": "Weight",
                            "formula": f"{weights.get(name, 0):g} of {total_w:g}",
                            "value": f"{share:.0%}",
                        },
                    ],
                )
            )
        row = Row(f"score_{name}", CRITERION_LABELS[name], "0–100", cells, "high")
        _mark_best(row, columns)
        rows.append(row)
    totals = []
    for col in columns:
        parts = " + ".join(
            f"{weights.get(n, 0):g}×{c['score']:.1f}"
            for n, c in zip(CRITERIA, col.score.criteria, strict=True)
        )
        totals.append(
            Cell(
                f"{col.score.total:.1f}",
                round(col.score.total, 1),
                explain=[
                    {
                        "label": "Weighted mean",
                        "formula": f"({parts}) / {total_w:g}",
                        "value": f"{col.score.total:.2f}",
                    }
                ],
            )
        )
    total_row = Row("total", "Weighted total", "0–100", totals, "high")
    _mark_best(total_row, columns)
    ranks = [
        Cell(str(c.score.rank) if c.score.rank else "—", c.score.rank or None) for c in columns
    ]
    shares = [
        Cell(f"{c.score.win_share:.0%}", round(c.score.win_share * 100))
        if c.score.win_share is not None
        else Cell("—", None)
        for c in columns
    ]
    return Group(
        SCORES_GROUP,
        [
            *rows,
            total_row,
            Row("rank", "Rank", "", ranks),
            Row("win_share", "Wins in random weight draws", "%", shares),
        ],
    )


def _sensitivity(run: ScoringRun, columns: Sequence[Column]) -> dict[str, Any]:
    data = run.sensitivity or {}
    name_of: dict[str, str] = {c.score.label: c.name for c in columns}

    def name(label: str | None) -> str:
        return name_of.get(label or "", "nobody")

    moves = [
        {
            "criterion": CRITERION_LABELS.get(m["criterion"], m["criterion"]),
            "change": f"{(m['factor'] - 1) * 100:+.0f} %",
            "winner": name(m["winner"]),
        }
        for m in data.get("winner_changing_moves", [])
    ]
    shares = sorted(
        ((name(label), share) for label, share in data.get("win_shares", {}).items()),
        key=lambda item: -item[1],
    )
    return {
        "verdict": data.get("verdict", ""),
        "winner": name(data.get("winner")),
        "winner_share": data.get("winner_share", 0.0),
        "draws": data.get("draws", 0),
        "draws_text": f"{data.get('draws', 0):,}",
        "moves_tested": len(data.get("moves", [])),
        "changing_moves": moves,
        "shares": [{"name": n, "share": s} for n, s in shares if s > 0],
    }


def _charts(
    columns: Sequence[Column], weights: dict[str, float], sensitivity: dict[str, Any]
) -> dict[str, Any]:
    total_w = sum(weights.values()) or 1.0
    names = [c.name + ("" if c.qualified else " (disqualified)") for c in columns]
    stacks = [
        {
            "name": CRITERION_LABELS[n],
            "values": [
                round(c.score.criteria[i]["score"] * weights.get(n, 0) / total_w, 2)
                for c in columns
            ],
        }
        for i, n in enumerate(CRITERIA)
    ]
    curves = []
    for col in [c for c in columns if c.qualified][:MAX_CURVES]:
        curve = col.score.curve
        if not curve:
            continue
        curves.append(
            {
                "name": col.name,
                "x": [round(p[0] / 60, 2) for p in curve["points"]],
                "y": [round(p[1] * 100, 3) for p in curve["points"]],
                "chosen": [round(curve["chosen"][0] / 60, 2), round(curve["chosen"][1] * 100, 3)],
                "optimum": _optimum_point(curve),
            }
        )
    return {
        "names": names,
        "scores": stacks,
        "prices": {
            "list": [c.score.cost.get("price_per_gpu_hour") for c in columns],
            "effective": [_round(c.score.effective_price, 3) for c in columns],
        },
        "curves": curves,
        "shares": sensitivity.get("shares", []),
        "palette": list(PALETTE),
    }


def _optimum_point(curve: dict[str, Any]) -> list[float] | None:
    """The Daly optimum as a comparison point when the bid was scored at the buyer's own
    interval; None when the two coincide (or for runs stored before the buyer could give one)."""
    optimum = curve.get("optimum")
    if not optimum or abs(optimum[0] - curve["chosen"][0]) < 1e-6:
        return None
    return [round(optimum[0] / 60, 2), round(optimum[1] * 100, 3)]


def _round(value: Any, digits: int) -> float | None:
    return round(value, digits) if isinstance(value, int | float) else None
