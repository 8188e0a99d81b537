"""The comparison matrix as plain data: the page, the charts, the API and both exports read this
one build.

A finished run's presentation is built once and stored (`evaluation.presentation`) with a
fingerprint of everything else it read; each read costs a constant number of queries whatever
the number of bids: the live inputs' fingerprint and their run, the last finished run, the
presentation's inputs and the stored presentation (and, when those changed, the run's scores
with their revisions to build it again).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bids.choices import RequestStatus
from bids.models import CapacityRequest
from engine.domain import PALETTE
from engine.formatting import fixed
from engine.scoring import CRITERIA
from evaluation.anonymise import hide_identifying
from evaluation.comparison_rows import ROW_GROUPS, Facts, RowSpec, explain_steps
from evaluation.matrix import (
    CURRENT,
    FAILED,
    NO_BIDS,
    OUTDATED,
    PENDING,
    SEALED,
    Cell,
    Column,
    Comparison,
    Group,
    Row,
    RunScores,
    columns_from_json,
    columns_to_json,
    groups_printed,
    groups_to_json,
)
from evaluation.matrix_html import matrix_body
from evaluation.models import BidScore, ScoringRun, ScoringStatus
from evaluation.presentation import (
    Inputs,
    presentation_inputs,
    presentation_store,
    stored_presentation,
)
from evaluation.services import LiveInputs, live_inputs
from questionnaire.selectors import revision_conflicts
from questionnaire.snapshot import scoring_answers

__all__ = [
    "CURRENT",
    "FAILED",
    "NO_BIDS",
    "OUTDATED",
    "PENDING",
    "SEALED",
    "Cell",
    "Column",
    "Comparison",
    "Group",
    "Row",
]

CRITERION_LABELS = {
    "effective_cost": "Effective cost",
    "fabric_placement": "Fabric and placement",
    "incident_sla": "Incident response and SLA",
    "acceptance_terms": "Acceptance and evidence terms",
    "delivery_risk": "Delivery risk",
}
#: Goodput curves beyond this many bids make the chart unreadable; the best-ranked are drawn.
MAX_CURVES = 12
# The matrix group of criterion scores, rank and draw share (the summary PDF prints them elsewhere).
SCORES_GROUP = "Scores"


@dataclass(frozen=True)
class _Scored:
    """What one column's rows are built from (not kept once the presentation is stored)."""

    column: Column
    score: BidScore
    steps: dict[str, dict[str, str]]
    facts: Facts


def comparison_state(*, capacity_request: CapacityRequest) -> tuple[str, ScoringRun | None]:
    """Where scoring stands for the request's current inputs (a constant number of queries)."""
    state, run, _ = _state(capacity_request)
    return state, run


def _state(capacity_request: CapacityRequest) -> tuple[str, ScoringRun | None, LiveInputs | None]:
    """`comparison_state`, and the live inputs it read (None while sealed)."""
    if capacity_request.bids_hidden_from_buyer:
        return SEALED, None, None
    live = live_inputs(capacity_request=capacity_request)
    run = (
        ScoringRun.objects.filter(request=capacity_request, fingerprint=live.fingerprint)
        .defer("result")
        .first()
    )
    if run is None:
        # Nothing was ever scored for these inputs: with no bid there is nothing to re-score.
        return (OUTDATED if live.names else NO_BIDS), None, live
    if run.status == ScoringStatus.DONE:
        return (CURRENT if run.bid_count else NO_BIDS), run, live
    return (FAILED if run.status == ScoringStatus.FAILED else PENDING), run, live


def comparison_for_buyer(
    *,
    capacity_request: CapacityRequest,
    anonymise: bool = False,
    with_html: bool = False,
    with_json: bool = False,
) -> Comparison:
    """`with_html`: the page's read, the printed matrix instead of its cells; `with_json`: the
    API's, the matrix printed as its JSON (`Comparison.groups_json`). Cells not read load when
    first asked for."""
    anonymise = anonymise and capacity_request.status != RequestStatus.AWARDED
    state, current, live = _state(capacity_request)
    out = Comparison(
        request=capacity_request, state=state, anonymised=anonymise, current_run=current
    )
    if state == SEALED:
        return out
    out.uses_verified = live.context.uses_verified if live is not None else None
    if current is not None and current.status == ScoringStatus.DONE:
        shown: ScoringRun | None = current
    else:
        shown = (
            ScoringRun.objects.filter(request=capacity_request, status=ScoringStatus.DONE)
            .defer("result")
            .order_by("-finished_at", "-pk")
            .first()
        )
    out.shown_run = shown
    if shown is None:
        return out
    # The run for the live inputs scored exactly the bids they read: their names serve as is.
    inputs = presentation_inputs(
        capacity_request=capacity_request,
        run=shown,
        anonymise=anonymise,
        live=live if live is not None and shown.fingerprint == live.fingerprint else None,
    )
    if not inputs.names:
        return out
    fingerprint = inputs.fingerprint(shown, anonymise)
    stored = stored_presentation(
        run=shown,
        anonymised=anonymise,
        fingerprint=fingerprint,
        with_html=with_html,
        with_json=with_json,
    )
    if stored is None:
        _present(out, shown, inputs)
        stored = presentation_store(
            run=shown,
            anonymised=anonymise,
            fingerprint=fingerprint,
            columns=columns_to_json(out.columns),
            groups=groups_to_json(out.groups),
            summary={"sensitivity": out.sensitivity, "charts": out.charts},
            matrix_html=matrix_body(out.groups, len(out.columns)),
            groups_json=groups_printed(out.groups),
        )
    else:
        out.columns = columns_from_json(stored.columns, RunScores(shown.pk))
        out.sensitivity = stored.summary["sensitivity"]
        out.charts = stored.summary["charts"]
    out.presentation = stored
    return out


def _present(out: Comparison, shown: ScoringRun, inputs: Inputs) -> None:
    """The matrix, charts and sensitivity of a finished run, as the buyer's side sees it."""
    scores = list(shown.scores.select_related("revision__bid__provider").order_by("position"))
    run_scores = RunScores(shown.pk, scores)
    anonymise = out.anonymised
    scored = []
    for s in scores:
        bid_id = s.revision.bid_id
        conflicts = revision_conflicts(revision=s.revision, agreed=inputs.agreed)
        column = Column(
            name=inputs.labels[bid_id] if anonymise else inputs.names[bid_id],
            label=s.label,
            bid_id=bid_id,
            provider_id=s.revision.bid.provider_id,
            revision_id=s.revision_id,
            revision_number=s.revision.number,
            qualified=s.qualified,
            rank=s.rank,
            total=s.total,
            effective_price=s.effective_price,
            criteria={c["name"]: float(c["score"]) for c in s.criteria},
            reasons=[d["message"] for d in s.disqualifications],
            conflict_messages=[c.without_quote if anonymise else c.message for c in conflicts],
            mtbf_source=s.cost.get("node_mtbf_source") or "",
            scores=run_scores,
        )
        facts = Facts(scoring_answers(s.revision.questionnaire), *inputs.acks[bid_id])
        scored.append(_Scored(column, s, explain_steps(s.cost), facts))
    out.columns = [item.column for item in scored]
    out.groups = [
        Group(title, [_row(spec, scored) for spec in specs]) for title, specs in ROW_GROUPS
    ]
    out.groups.append(_score_group(scored, shown.weights))
    _set_apart_disqualified(out)
    if anonymise:
        hide_identifying(out)
    out.sensitivity = _sensitivity(shown, out.columns)
    out.charts = _charts(scored, shown.weights, out.sensitivity)


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


def _row(spec: RowSpec, scored: Sequence[_Scored]) -> Row:
    cells = [spec.cell(c.score.revision, c.score.cost, c.steps, c.facts) for c in scored]
    row = Row(spec.key, spec.label, spec.unit, cells, spec.better)
    _mark_best(row, [c.column for c in scored])
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


def tenths(score: float) -> tuple[str, float]:
    """A score as shown and as compared: one decimal, half up, as every page and notice rounds
    it (69.05 is 69.1, though the float is a hair under)."""
    text = fixed(score, places=1)
    return text, float(text)


def _score_group(scored: Sequence[_Scored], weights: dict[str, float]) -> Group:
    columns = [c.column for c in scored]
    total_w = sum(weights.values()) or 1.0
    rows = []
    for index, name in enumerate(CRITERIA):
        share = weights.get(name, 0.0) / total_w
        cells = []
        for item in scored:
            crit = item.score.criteria[index]
            cells.append(
                Cell(
                    *tenths(crit["score"]),
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
    for item in scored:
        score = item.score
        parts = " + ".join(
            f"{weights.get(n, 0):g}×{tenths(c['score'])[0]}"
            for n, c in zip(CRITERIA, score.criteria, strict=True)
        )
        totals.append(
            Cell(
                *tenths(score.total),
                explain=[
                    {
                        "label": "Weighted mean",
                        "formula": f"({parts}) / {total_w:g}",
                        "value": f"{score.total:.2f}",
                    }
                ],
            )
        )
    total_row = Row("total", "Weighted total", "0–100", totals, "high")
    _mark_best(total_row, columns)
    ranks = [Cell(str(c.rank) if c.rank else "—", c.rank or None) for c in columns]
    shares = [
        Cell(f"{c.score.win_share:.0%}", round(c.score.win_share * 100))
        if c.score.win_share is not None
        else Cell("—", None)
        for c in scored
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
    name_of: dict[str, str] = {c.label: c.name for c in columns}

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
    scored: Sequence[_Scored], weights: dict[str, float], sensitivity: dict[str, Any]
) -> dict[str, Any]:
    total_w = sum(weights.values()) or 1.0
    columns = [c.column for c in scored]
    names = [c.name + ("" if c.qualified else " (disqualified)") for c in columns]
    stacks = [
        {
            "name": CRITERION_LABELS[n],
            "values": [round(c.criteria[n] * weights.get(n, 0) / total_w, 2) for c in columns],
        }
        for n in CRITERIA
    ]
    curves = []
    for item in [c for c in scored if c.column.qualified][:MAX_CURVES]:
        col, curve = item.column, item.score.curve
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
            "list": [c.score.cost.get("price_per_gpu_hour") for c in scored],
            "effective": [_round(c.effective_price, 3) for c in columns],
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
