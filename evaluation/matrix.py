"""The comparison's shapes (cells, rows, groups, columns, the whole comparison) and their JSON,
as stored with a finished run (`evaluation.presentation`) and read back by the page, the API and
the exports.

A column carries what those print (name, rank, total, reasons…) as plain values; its
`BidScore` and `BidRevision` are read, for every column at once in one query, only when a
reader asks for them (the award panel, the annex, the bid list's scores).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.scoring.reliability import MTBF_DEFAULT, MTBF_REALISED

if TYPE_CHECKING:
    from bids.models import BidRevision, CapacityRequest
    from evaluation.models import BidScore, ComparisonPresentation, ScoringRun


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


class RunScores:
    """A run's scores by revision id, with their revisions and providers: given when the
    comparison was just built, else read in one query the first time a column asks."""

    def __init__(self, run_id: int, scores: list[BidScore] | None = None) -> None:
        self.run_id = run_id
        self._by_revision = None if scores is None else {s.revision_id: s for s in scores}

    def get(self, revision_id: int) -> BidScore:
        if self._by_revision is None:
            from evaluation.models import BidScore

            scores = BidScore.objects.filter(run_id=self.run_id).select_related(
                "revision__bid__provider"
            )
            self._by_revision = {s.revision_id: s for s in scores}
        return self._by_revision[revision_id]


@dataclass
class Column:
    name: str
    label: str  # the bid's key inside the run's result
    bid_id: int
    provider_id: int
    revision_id: int
    revision_number: int
    qualified: bool
    rank: int | None
    total: float
    effective_price: float | None
    criteria: dict[str, float]  # the criterion scores by name
    reasons: list[str]  # why disqualified, as shown (scrubbed while anonymised)
    conflict_messages: list[str]  # one fact stated with two values (anonymised: no quotes)
    mtbf_source: str = ""
    css: str = ""
    scores: RunScores | None = field(default=None, repr=False, compare=False)

    @property
    def score(self) -> BidScore:
        assert self.scores is not None, "a column read back knows its run"
        return self.scores.get(self.revision_id)

    @property
    def revision(self) -> BidRevision:
        return self.score.revision

    @property
    def mtbf_default(self) -> bool:
        return self.mtbf_source == MTBF_DEFAULT

    @property
    def mtbf_realised(self) -> bool:
        return self.mtbf_source == MTBF_REALISED


@dataclass
class Comparison:
    request: CapacityRequest
    state: str
    anonymised: bool
    current_run: ScoringRun | None = None
    shown_run: ScoringRun | None = None
    columns: list[Column] = field(default_factory=list)
    charts: dict[str, Any] = field(default_factory=dict)
    sensitivity: dict[str, Any] = field(default_factory=dict)
    # Whether scoring reads the pilots' verified figures, as the live inputs read it (None
    # where they were not read: sealed).
    uses_verified: bool | None = None
    # The stored presentation these came from: its matrix is read from it when first asked for.
    presentation: ComparisonPresentation | None = field(default=None, repr=False)
    _groups: list[Group] | None = field(default=None, repr=False)

    @property
    def groups(self) -> list[Group]:
        if self._groups is None:
            stored = self.presentation.groups if self.presentation is not None else []
            self._groups = groups_from_json(stored)
        return self._groups

    @groups.setter
    def groups(self, value: list[Group]) -> None:
        self._groups = value

    @property
    def groups_json(self) -> str:
        """The groups as the API prints them, as stored ("" when not stored or not read)."""
        return self.presentation.groups_json if self.presentation is not None else ""

    @property
    def matrix_html(self) -> str:
        """The matrix body as stored with the presentation ("" when there is none)."""
        return self.presentation.matrix_html if self.presentation is not None else ""

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
        return [c for c in self.columns if c.conflict_messages]

    @property
    def any_default_mtbf(self) -> bool:
        return any(c.mtbf_default for c in self.columns)

    @property
    def any_realised_mtbf(self) -> bool:
        return any(c.mtbf_realised for c in self.columns)


_COLUMN_FIELDS = (
    "name",
    "label",
    "bid_id",
    "provider_id",
    "revision_id",
    "revision_number",
    "qualified",
    "rank",
    "total",
    "effective_price",
    "criteria",
    "reasons",
    "conflict_messages",
    "mtbf_source",
    "css",
)


def columns_to_json(columns: list[Column]) -> list[dict[str, Any]]:
    return [{name: getattr(c, name) for name in _COLUMN_FIELDS} for c in columns]


def columns_from_json(data: list[dict[str, Any]], scores: RunScores) -> list[Column]:
    return [Column(**{name: item[name] for name in _COLUMN_FIELDS}, scores=scores) for item in data]


def _groups_as(groups: list[Group], cell: Callable[[Cell], Any]) -> list[dict[str, Any]]:
    return [
        {
            "title": g.title,
            "rows": [
                {
                    "key": r.key,
                    "label": r.label,
                    "unit": r.unit,
                    "better": r.better,
                    "cells": [cell(c) for c in r.cells],
                }
                for r in g.rows
            ],
        }
        for g in groups
    ]


def groups_to_json(groups: list[Group]) -> list[dict[str, Any]]:
    """The groups as stored with a presentation: each cell a list, styling included."""
    return _groups_as(groups, lambda c: [c.display, c.value, c.best, c.note, c.explain, c.css])


def groups_from_json(data: list[dict[str, Any]]) -> list[Group]:
    return [
        Group(
            g["title"],
            [
                Row(r["key"], r["label"], r["unit"], [Cell(*c) for c in r["cells"]], r["better"])
                for r in g["rows"]
            ],
        )
        for g in data
    ]


def groups_api(groups: list[Group]) -> list[dict[str, Any]]:
    """The groups in the API's shape (`ComparisonSerializer.groups`): a cell's values named,
    its page-only styling left out."""
    return _groups_as(
        groups,
        lambda c: {
            "display": c.display,
            "value": c.value,
            "best": c.best,
            "note": c.note,
            "explain": c.explain,
        },
    )


def groups_printed(groups: list[Group]) -> str:
    """`groups_api` printed as DRF's JSON renderer prints an answer (compact, UTF-8 as is,
    no NaN, U+2028/U+2029 escaped), so that the API can write it into its answer unchanged."""
    text = json.dumps(
        groups_api(groups), ensure_ascii=False, allow_nan=False, separators=(",", ":")
    )
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
