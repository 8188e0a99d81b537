"""The JSON snapshot an annex is rendered from: what both parties agreed, read at render time.

Values are stored as JSON-safe plain data (dates ISO, decimals as strings) so the snapshot's
SHA-256 is stable and a later version can be compared field by field.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from acceptance.models import Fixture, Reservation
from acceptance.selectors.lot_parts import reservation_acknowledgement, reservation_terms_revision
from annexes.document.outcome import KIND_OUTCOME, outcome_snapshot
from annexes.document.statement import KIND_STATEMENT, statement_snapshot
from bids.models import BidRevision, BidTerms, CapacityRequest
from bids.models.requests import (
    ALLOCATION_FIELDS,
    PURCHASING_FIELDS,
    TERM_FIELDS,
    WORKLOAD_FIELDS,
)
from contracts.models import HandoffTerms
from evaluation.comparison import FAILED, OUTDATED, PENDING, comparison_for_buyer
from evaluation.scenario_compare import scenario_table
from evaluation.scenario_inputs import current_revision_ids
from evaluation.scenario_selectors import awarded_scenario, scenario_list

SCHEMA = "clusterbid.annex/1"
KIND_CONTRACT = "contract"
KIND_COMPARISON = "comparison"

REQUEST_FIELDS = [
    "title",
    *ALLOCATION_FIELDS,
    *TERM_FIELDS,
    "bid_deadline",
    *WORKLOAD_FIELDS,
    *PURCHASING_FIELDS,
]


def plain(value: Any) -> Any:
    """JSON-safe, deterministic form of a model value."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


# Optional fields that older snapshots lack: left out while empty, so an unchanged request
# keeps its annex checksum.
_OMIT_WHEN_EMPTY = {"checkpoint_interval_minutes", *PURCHASING_FIELDS}


# The budget is the buyer's own: its comparison summary states it, a contract both parties sign
# does not. The purchase order and cost centre are what the provider's invoices must quote.
BUYER_ONLY_FIELDS = ("budget_usd",)


def request_part(capacity_request: CapacityRequest, *, both_parties: bool) -> dict[str, Any]:
    names = [n for n in REQUEST_FIELDS if not (both_parties and n in BUYER_ONLY_FIELDS)]
    values = {name: plain(getattr(capacity_request, name)) for name in names}
    return {
        "id": capacity_request.pk,
        "buyer": capacity_request.buyer.name,
        **{k: v for k, v in values.items() if not (k in _OMIT_WHEN_EMPTY and v in (None, ""))},
    }


LOT_TERMS = ("lot_offers", "bundles")
# Printed only when given: annexes of whole-device offers keep their checksum.
OPTIONAL_TERMS = (*LOT_TERMS, "mig_profile", "time_slice_replicas")


def revision_part(revision: BidRevision) -> dict[str, Any]:
    return {
        "bid_id": revision.bid_id,
        "number": revision.number,
        "submitted_at": plain(revision.submitted_at),
        "submitted_by": revision.submitted_by.get_username() if revision.submitted_by else None,
        # Lot offers, bundles and a kind's specifics only where given: other annexes keep their
        # checksum.
        "terms": {
            name: plain(getattr(revision, name))
            for name in BidTerms.term_field_names()
            if name not in OPTIONAL_TERMS or getattr(revision, name)
        },
        # Only when it carried files: annexes of revisions without any keep their checksum.
        **({"attachments": plain(revision.attachments)} if revision.attachments else {}),
    }


def addenda_part(capacity_request: CapacityRequest) -> list[dict[str, Any]]:
    return [
        {
            "number": a.number,
            "title": a.title,
            "published_at": plain(a.published_at),
            "text": a.text,
        }
        for a in capacity_request.addenda.order_by("number")
    ]


def _username(user: Any) -> str | None:
    return user.get_username() if user is not None else None


def acceptance_part(reservation: Any, decision: Any) -> dict[str, Any]:
    """The decision; an acceptance adds its clock start, an override both people, the waived
    checks and which baseline applies (keys absent on older decisions keep their checksum)."""
    part: dict[str, Any] = {
        "kind": decision.kind,
        "by": _username(decision.by),
        "at": plain(decision.at),
        "reason": decision.reason,
        "gate_passed": decision.gate_passed,
        "gate_summary": decision.gate_summary,
    }
    if reservation.clock_starts_at is not None:
        part["clock_starts_at"] = plain(reservation.clock_starts_at)
    override = decision.override
    if override is not None:
        part["override"] = {
            "requested_by": _username(override.requested_by),
            "requested_at": plain(override.requested_at),
            "approved_by": _username(decision.by),
            "approved_at": plain(decision.at),
            "waived": plain(override.waived),
            "baseline_from_run": override.baseline_from_run,
        }
    return part


def lot_part(reservation: Reservation) -> dict[str, Any]:
    """What a split award's reservation holds of its lot: the nodes and price won, the term."""
    lot = reservation.lot
    assert lot is not None
    return {
        "number": lot.number,
        "name": lot.name,
        "nodes": reservation.nodes,
        "gpus_per_node": lot.gpus_per_node,
        "region": lot.region,
        "reservation_start": plain(lot.start),
        "reservation_end": plain(lot.end),
        "price_per_gpu_hour": plain(reservation.price_per_gpu_hour),
    }


def contract_snapshot(
    *, capacity_request: CapacityRequest, reservation: Reservation | None = None
) -> dict[str, Any]:
    """Everything the contract annex states, for an awarded request (both parties see it); on
    a split award, for one reservation (one lot and its provider)."""
    rows = Reservation.objects.select_related(
        "bid__provider",
        "bid_revision__submitted_by",
        "fixture_version",
        "decision__by",
        "decision__override__requested_by",
        "lot__request",
    )
    if reservation is None:
        reservation = rows.filter(request=capacity_request, lot__isnull=True).first()
    else:
        reservation = rows.get(pk=reservation.pk)
    if reservation is None:
        raise ValueError("The request has no awarded bid yet; an annex needs one.")
    revision = reservation.bid_revision
    # A lot with its own fixture and terms prints those: the fixture the reservation is checked
    # against, the terms and acknowledgement of that lot (`acceptance.selectors.lot_parts`).
    ack = reservation_acknowledgement(reservation=reservation)
    terms_revision = (
        ack.terms_revision
        if ack and ack.terms_revision
        else reservation_terms_revision(reservation=reservation)
    )
    fixture = reservation.fixture_version
    decision = getattr(reservation, "decision", None)
    baseline = getattr(reservation, "baseline", None)
    addenda = addenda_part(capacity_request)
    return {
        "schema": SCHEMA,
        "kind": KIND_CONTRACT,
        "request": request_part(capacity_request, both_parties=True),
        "provider": reservation.bid.provider.name,
        "bid_revision": revision_part(revision),
        "fixture": None
        if fixture is None
        else {
            "version": fixture.number,
            "template": fixture.template,
            # Only for a lot's own fixture: annexes on the request's keep their checksum.
            **({"lot": own_lot} if (own_lot := _own_lot(fixture.fixture)) else {}),
            "spec_sha256": fixture.spec_sha256,
            "manifest": plain(fixture.manifest),
            "spec": plain(fixture.spec),
        },
        "terms": None
        if terms_revision is None
        else {
            "revision": terms_revision.number,
            **({"lot": own_lot} if (own_lot := _own_lot(terms_revision.terms)) else {}),
            "sha256": terms_revision.sha256,
            "values": plain(terms_revision.snapshot),
        },
        "acknowledgement": None if ack is None else plain(ack.record()),
        "questionnaire": plain(revision.questionnaire) or None,
        "acceptance": None if decision is None else acceptance_part(reservation, decision),
        "baseline": None if baseline is None else plain(baseline.snapshot),
        # Only when written: annexes issued before justifications existed keep their checksum.
        **(
            {"award_justification": reservation.award_justification}
            if reservation.award_justification
            else {}
        ),
        # Only when published, for the same reason: what every invitee was told while bidding.
        **({"addenda": addenda} if addenda else {}),
        **({"lot": lot_part(reservation)} if reservation.lot is not None else {}),
    }


def _own_lot(owner: Fixture | HandoffTerms) -> int | None:
    """The lot number of a lot's own fixture or terms; None for the request's."""
    return owner.lot.number if owner.lot_id is not None and owner.lot is not None else None


def scores_not_current(state: str) -> str | None:
    """Why a comparison in `state` cannot go into a summary. A summary is issued once and never
    changes, so it must not freeze scores that are not the current bids' and weights'."""
    why = {
        PENDING: "Scoring of the latest bids and weights is still running",
        FAILED: "The last scoring failed; retry it on the comparison page",
        OUTDATED: "The scores are out of date; re-score on the comparison page",
    }.get(state)
    return f"{why}, then generate the summary." if why else None


def comparison_snapshot(*, capacity_request: CapacityRequest) -> dict[str, Any]:
    """The buyer's bid comparison: scores, rationales and sensitivity (never for a provider)."""
    view = comparison_for_buyer(capacity_request=capacity_request, anonymise=False)
    if (why := scores_not_current(view.state)) is not None:
        raise ValueError(why)
    if not view.columns or view.shown_run is None:
        raise ValueError("There is no scored comparison to put in a summary yet.")
    return {
        "schema": SCHEMA,
        "kind": KIND_COMPARISON,
        "request": request_part(capacity_request, both_parties=False),
        "scoring_run": view.shown_run.pk,
        "scored_at": plain(view.shown_run.finished_at),
        "stale": view.stale,
        "weights": plain(view.shown_run.weights),
        "bids": [
            {
                "name": column.name,
                "revision": column.revision.number,
                "qualified": column.qualified,
                "rank": column.score.rank,
                "total": round(column.score.total, 2),
                "criteria": plain(column.score.criteria),
                "disqualifications": column.reasons,
            }
            for column in view.columns
        ],
        "matrix": [
            {
                "title": group.title,
                "rows": [
                    {"label": row.heading, "cells": [cell.display for cell in row.cells]}
                    for row in group.rows
                ],
            }
            for group in view.groups
        ],
        "sensitivity": plain(view.sensitivity),
        # The page's four charts, drawn again as vectors in the PDF.
        "charts": plain(view.charts),
        # Only when the buyer kept any, so summaries without scenarios keep their checksum.
        **({"scenarios": scenarios} if (scenarios := scenarios_part(capacity_request)) else {}),
        # Only on a request in lots (the ranking reads each bid whole there), likewise.
        **({"lots": lots} if (lots := capacity_request.lots.count()) else {}),
    }


def scenarios_part(capacity_request: CapacityRequest) -> list[dict[str, Any]]:
    """The award scenarios solved so far, as the scenarios page compares them: allocation,
    cost, useful GPU-hours, the cost of each rule, the conflicts, which one was awarded."""
    scenarios = [s for s in scenario_list(capacity_request=capacity_request) if s.finished]
    if not scenarios:
        return []
    awarded = awarded_scenario(capacity_request=capacity_request)
    table = scenario_table(
        scenarios, current_revisions=current_revision_ids(capacity_request=capacity_request)
    )
    out = []
    for column in table.columns:
        scenario, result = column.scenario, column.scenario.result or {}
        out.append(
            {
                "name": scenario.name,
                "objective": scenario.get_objective_display(),
                "status": column.status_text,
                "stale": column.stale,
                "awarded": awarded is not None and awarded.scenario_id == scenario.pk,
                "cost": plain(column.cost),
                "useful_gpu_hours": plain(column.useful),
                "useful_per_dollar": plain(column.per_dollar),
                "allocation": [
                    {k: line[k] for k in ("lot", "provider", "nodes", "gpus", "value")}
                    for line in result.get("lines", [])
                ],
                "rule_costs": [
                    {
                        "label": rc.get("label") or rc["rule"],
                        "status": rc.get("status"),
                        "cost_delta": rc.get("cost_delta"),
                        "useful_delta": rc.get("useful_delta"),
                    }
                    for rc in result.get("rule_costs", [])
                ],
                "conflicts": column.conflicts,
            }
        )
    return out


def snapshot_for(
    *,
    capacity_request: CapacityRequest,
    kind: str,
    period: str = "",
    reservation: Reservation | None = None,
) -> dict[str, Any]:
    """The snapshot of an annex of `kind` (a split award's: of `reservation`); ValueError says
    why there is none yet."""
    if kind == KIND_STATEMENT:
        return statement_snapshot(
            capacity_request=capacity_request, period=period, reservation=reservation
        )
    if kind == KIND_OUTCOME:
        return outcome_snapshot(
            capacity_request=capacity_request, period=period, reservation=reservation
        )
    if kind == KIND_CONTRACT:
        return contract_snapshot(capacity_request=capacity_request, reservation=reservation)
    return comparison_snapshot(capacity_request=capacity_request)
