"""Reads for the questionnaire. Tenancy comes from bids.selectors: callers pass objects
they already fetched through it, and buyer-wide reads reuse its sealing rules."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet

from bids import request_facts
from bids import selectors as bid_selectors
from bids.models import Bid, BidRevision, CapacityRequest
from questionnaire.answer_types import QuestionSpec, format_answer
from questionnaire.conflicts import Conflict, find_conflicts
from questionnaire.facts import bound_answers, bound_labels, bound_text
from questionnaire.models import BidQuestionnaire, KeptConflicts, QuestionSet
from questionnaire.snapshot import (
    AnswerChange,
    ScoringAnswers,
    compare_path,
    deal_breaker_failures,
    diff_snapshots,
    misses_target,
    missing_required,
    scoring_answers,
    specs_of,
)


def current_question_set(
    *, capacity_request: CapacityRequest, fields: Sequence[str] = ()
) -> QuestionSet | None:
    """The request's newest version; None means the request asks no questions. `fields`: the
    only columns the caller reads, where it reads few."""
    newest = QuestionSet.objects.filter(request=capacity_request).order_by("-version")
    return (newest.only(*fields) if fields else newest).first()


def question_specs(*, question_set: QuestionSet) -> list[QuestionSpec]:
    return [q.to_spec() for q in question_set.questions.order_by("order", "pk")]


def targets_of(question_set: QuestionSet | None) -> dict[str, dict[str, Any]]:
    if question_set is None:
        return {"response": {}, "restore": {}}
    return {
        "response": dict(question_set.target_response_minutes or {}),
        "restore": dict(question_set.target_restore_minutes or {}),
    }


def targets_for(
    *, capacity_request: CapacityRequest, question_set: QuestionSet | None
) -> dict[str, Any]:
    """Target clocks: the request's handoff terms when they exist, else the buyer's entries."""
    return _targets(request_facts.agreed_terms(capacity_request), question_set)


def _targets(
    terms: request_facts.AgreedTerms | None, question_set: QuestionSet | None
) -> dict[str, Any]:
    if terms is None:
        return {**targets_of(question_set), "source": "questionnaire targets"}
    clocks = {
        clock: {
            sev: terms.values.get(f"{sev.lower()}_{clock}_minutes")
            for sev in ("S1", "S2", "S3")
            if terms.values.get(f"{sev.lower()}_{clock}_minutes")
        }
        for clock in ("response", "restore")
    }
    return {**clocks, "source": f"handoff terms v{terms.version}"}


def target_clock_minutes(
    *, capacity_request: CapacityRequest, terms: request_facts.AgreedTerms | None
) -> dict[str, dict[str, float]] | None:
    """For scoring's target_response_minutes and target_restore_minutes, by clock. `terms`:
    the request's agreed handoff terms (`bids.request_facts.agreed_terms`), which the caller
    reads for other uses too; the question set is read only where there are none."""
    qs = None
    if terms is None:  # of the newest question set, its target clocks alone
        clocks = ("target_response_minutes", "target_restore_minutes")
        qs = current_question_set(capacity_request=capacity_request, fields=clocks)
    targets = _targets(terms, qs)
    out = {
        clock: {sev: float(v) for sev, v in (targets.get(clock) or {}).items() if v}
        for clock in ("response", "restore")
    }
    return {clock: sevs for clock, sevs in out.items() if sevs} or None


def required_transport(
    *, capacity_request: CapacityRequest, question_set: QuestionSet | None
) -> tuple[str, str]:
    """(transport, where it comes from): the fixture wins over the buyer's entry."""
    fixture = request_facts.fixture_transport(capacity_request)
    if fixture is not None:
        return fixture.transport, f"acceptance fixture v{fixture.version}"
    if question_set is not None and question_set.required_transport:
        return question_set.required_transport, "buyer's questionnaire"
    return "", ""


@dataclass
class DraftState:
    question_set: QuestionSet | None
    specs: list[QuestionSpec] = field(default_factory=list)
    answers: dict[str, Any] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    path: dict[str, Any] = field(default_factory=dict)
    targets: dict[str, Any] = field(default_factory=dict)
    # Bound questions: key → "Spare nodes = 2", the bid field that answers it.
    bound: dict[str, str] = field(default_factory=dict)
    conflicts: list[Conflict] = field(default_factory=list)

    @property
    def answered(self) -> int:
        return sum(1 for s in self.specs if self.answers.get(s.key) is not None)


def draft_state(*, bid: Bid) -> DraftState:
    """The provider's working answers measured against the request's current question set."""
    qs = current_question_set(capacity_request=bid.request)
    if qs is None:
        return DraftState(
            question_set=None,
            conflicts=find_conflicts(terms=bid.terms_dict(), specs=[], answers={}, agreed=None),
        )
    specs = question_specs(question_set=qs)
    row = BidQuestionnaire.objects.filter(bid=bid).first()
    keys = {s.key for s in specs}
    stored = {k: v for k, v in (row.answers if row else {}).items() if k in keys}
    terms = bid.terms_dict()
    # A bound question's answer is its bid field's value; a stored one is ignored (a conflict).
    answers = {**stored, **bound_answers(specs, terms)}
    transport = answers.get("path.transport")
    required, source = required_transport(capacity_request=bid.request, question_set=qs)
    return DraftState(
        question_set=qs,
        specs=specs,
        answers=answers,
        missing=missing_required(specs, answers),
        failures=deal_breaker_failures(specs, answers),
        path=compare_path(
            required=required,
            source=source,
            offered=transport if isinstance(transport, str) else None,
        ),
        targets=targets_for(capacity_request=bid.request, question_set=qs),
        bound={s.key: bound_text(s, terms) for s in specs if s.key in bound_labels([s])},
        conflicts=find_conflicts(
            terms=terms,
            specs=specs,
            answers=stored,
            agreed=agreed_terms(capacity_request=bid.request),
        ),
    )


def agreed_terms(*, capacity_request: CapacityRequest) -> dict[str, Any] | None:
    """The request's handoff terms as values (the maintenance notice they agree), if any."""
    terms = request_facts.agreed_terms(capacity_request)
    return terms.values if terms is not None else None


def revision_conflicts(*, revision: BidRevision, agreed: dict[str, Any] | None) -> list[Conflict]:
    """The conflicts a frozen revision states (its terms against its frozen answers)."""
    snap = revision.questionnaire or {}
    return find_conflicts(
        terms=revision.terms_dict(),
        specs=specs_of(snap),
        answers=snap.get("answers", {}),
        agreed=agreed,
        legacy=True,
    )


def copy_sources(*, bid: Bid) -> QuerySet[Bid]:
    """The provider's other bids that hold answers to start from."""
    return (
        Bid.objects.filter(provider=bid.provider, questionnaire_answers__isnull=False)
        .exclude(pk=bid.pk)
        .select_related("request")
        .order_by("-updated_at")
    )


@dataclass
class MatrixCell:
    text: str
    css: str = ""


@dataclass
class MatrixRow:
    spec: QuestionSpec
    cells: list[MatrixCell]


@dataclass
class AnswersMatrix:
    columns: list[tuple[Bid, BidRevision]]
    sections: list[tuple[str, list[MatrixRow]]]
    paths: list[dict[str, Any]]
    failures: list[list[str]]
    targets: dict[str, Any]
    hidden_rows: int = 0
    asked: bool = True  # False: the request has no questionnaire, so bids answered nothing


def answers_matrix(*, capacity_request: CapacityRequest) -> AnswersMatrix:
    """Every visible bid's latest frozen answers side by side (sealing and drafts respected)."""
    qs = current_question_set(capacity_request=capacity_request)
    targets = targets_for(capacity_request=capacity_request, question_set=qs)
    bids = list(bid_selectors.bid_list_for_buyer(capacity_request=capacity_request))
    revisions = bid_selectors.latest_revisions(bids)
    columns = [(b, revisions[b.pk]) for b in bids if b.pk in revisions]
    snapshots = [rev.questionnaire or {} for _, rev in columns]
    specs = question_specs(question_set=qs) if qs else []
    known = {s.key for s in specs}
    for snap in snapshots:  # questions a bid answered that the current version dropped
        for spec in specs_of(snap):
            if spec.key not in known:
                specs.append(spec)
                known.add(spec.key)
    sections: dict[str, list[MatrixRow]] = {}
    hidden = 0
    for spec in specs:
        cells = []
        for snap in snapshots:
            value = snap.get("answers", {}).get(spec.key)
            css = "missing" if value is None and (spec.required or spec.rule) else ""
            if misses_target(spec, value, targets):
                css = "miss"
            if value is not None and deal_breaker_failures([spec], {spec.key: value}):
                css = "fail"
            cells.append(MatrixCell(format_answer(spec, value), css))
        if not any(c.css or c.text != "—" for c in cells):
            hidden += 1  # nobody answered and nothing is missing: a row of dashes says nothing
            continue
        sections.setdefault(spec.section, []).append(MatrixRow(spec, cells))
    return AnswersMatrix(
        asked=qs is not None or bool(sections),
        columns=columns,
        sections=list(sections.items()),
        paths=[snap.get("execution_path") or {} for snap in snapshots],
        failures=[list(snap.get("deal_breaker_failures", [])) for snap in snapshots],
        targets=targets,
        hidden_rows=hidden,
    )


def revision_diff(*, older: BidRevision, newer: BidRevision) -> list[AnswerChange]:
    return diff_snapshots(older.questionnaire or {}, newer.questionnaire or {})


def scoring_inputs_for_revisions(
    revisions: Iterable[BidRevision | int],
) -> dict[int, ScoringAnswers]:
    """Per revision id, the questionnaire facts scoring needs. One query for any number."""
    ids = [r if isinstance(r, int) else r.pk for r in revisions]
    rows = BidRevision.objects.filter(pk__in=ids).values_list("pk", "questionnaire")
    return {pk: scoring_answers(snapshot) for pk, snapshot in rows}


def kept_conflicts(*, bid: Bid) -> KeptConflicts | None:
    """The conflicts the provider kept as stated on this bid, with its reason."""
    return KeptConflicts.objects.filter(bid=bid).select_related("kept_by").first()


def kept_conflicts_by_bid(*, bid_ids: Iterable[int]) -> dict[int, KeptConflicts]:
    """Per bid id, the conflicts its provider kept as stated and why (one query for any number;
    bids that kept none are absent)."""
    kept = KeptConflicts.objects.filter(bid_id__in=list(bid_ids)).only(
        "bid_id", "messages", "reason"
    )
    return {k.bid_id: k for k in kept}
