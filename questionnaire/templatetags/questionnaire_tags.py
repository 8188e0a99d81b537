"""Panels the bids pages include: the questionnaire's state on a bid and on a request."""

from __future__ import annotations

from typing import Any

from django import template

from bids.models import Bid, BidRevision, CapacityRequest
from core.web import kept_input
from questionnaire import selectors
from questionnaire.answer_types import QuestionSpec, format_answer
from questionnaire.defaults import CLOCKS, SEVERITIES, STEPS
from questionnaire.facts import binding_of
from questionnaire.services.answers import ANSWERS
from questionnaire.services.conflicts import CONFLICTS
from questionnaire.snapshot import misses_target, specs_of

register = template.Library()


def frozen_view(revision: BidRevision | None) -> dict[str, Any]:
    """A revision's answers laid out like the form: the matrix grid, then the other sections."""
    snap = (revision.questionnaire if revision else None) or {}
    specs = {s.key: s for s in specs_of(snap)}
    answers, targets = snap.get("answers", {}), snap.get("targets", {})

    def cell(key: str) -> dict[str, str] | None:
        spec = specs.pop(key, None)
        if spec is None:
            return None
        value = answers.get(key)
        return {
            "text": format_answer(spec, value),
            "css": "miss" if misses_target(spec, value, targets) else "",
        }

    grid = []
    for step, label, _ in STEPS:
        owner, evidence = cell(f"{step}.owner"), cell(f"{step}.evidence")
        clocks = [cell(f"{step}.{sev}.{clock}") for sev in SEVERITIES for clock in CLOCKS]
        if owner or evidence or any(clocks):
            grid.append({"label": label, "owner": owner, "evidence": evidence, "clocks": clocks})
    sections: dict[str, list[tuple[str, str]]] = {}
    for spec in specs.values():
        sections.setdefault(spec.section, []).append(
            (spec.text, format_answer(spec, answers.get(spec.key)))
        )
    return {
        "has_answers": bool(snap),
        "grid": grid,
        "sections": list(sections.items()),
        "failures": snap.get("deal_breaker_failures", []),
        "path": snap.get("execution_path") or {},
        "severities": SEVERITIES,
    }


@register.filter
def bound_label(spec: QuestionSpec) -> str:
    """The label of the bid field that answers `spec`; blank when it is answered here."""
    binding = binding_of(spec)
    return binding.label if binding is not None else ""


@register.inclusion_tag("questionnaire/_bid_panel_body.html", takes_context=True)
def questionnaire_bid_panel(context: template.Context) -> dict[str, Any]:
    bid: Bid = context["bid"]
    is_owner = bool(context.get("is_owner"))
    revisions = list(context.get("revisions") or [])
    out: dict[str, Any] = {"bid": bid, "is_owner": is_owner, "revision_count": len(revisions)}
    if is_owner:
        out["state"] = selectors.draft_state(bid=bid)
        out["editable"] = bid.draft_locked_reason() is None
    latest = revisions[0] if revisions else None
    out["latest"] = latest
    out["frozen"] = frozen_view(latest)
    # One fact stated twice with two values: the owner sees its draft's before it submits.
    if is_owner:
        out["conflicts"] = out["state"].conflicts
    elif latest is not None:
        agreed = selectors.agreed_terms(capacity_request=bid.request)
        out["conflicts"] = selectors.revision_conflicts(revision=latest, agreed=agreed)
    if out.get("conflicts"):
        kept = selectors.kept_conflicts(bid=bid)
        kept_messages = kept.messages if kept is not None else []
        out["kept"] = kept
        out["unresolved"] = [c.message for c in out["conflicts"] if c.message not in kept_messages]
        if is_owner:
            typed = kept_input(context["request"], key=f"conflicts:{bid.pk}")
            out["kept_reason"] = typed.get("reason", "")
    return out


@register.inclusion_tag("questionnaire/_bid_form_refused_body.html", takes_context=True)
def questionnaire_form_refused(context: template.Context) -> dict[str, Any]:
    """Where the bid form's submit refusals that the questionnaire raised are fixed."""
    keys = context.get("refused_keys") or []
    return {
        "bid": context["bid"],
        "answers": sum(key.startswith(f"{ANSWERS}.") for key in keys),
        "conflicts": CONFLICTS in keys,
    }


@register.inclusion_tag("questionnaire/_request_panel_body.html", takes_context=True)
def questionnaire_request_panel(context: template.Context) -> dict[str, Any]:
    req: CapacityRequest = context["req"]
    org = context.get("active_org")
    qs = selectors.current_question_set(capacity_request=req)
    counts = {"total": 0, "required": 0, "deal_breakers": 0}
    if qs is not None:
        for required, rule in qs.questions.values_list("required", "rule"):
            counts["total"] += 1
            counts["required"] += bool(required or rule)
            counts["deal_breakers"] += bool(rule)
    return {
        "req": req,
        "is_buyer": bool(org and org.is_buyer),
        "qs": qs,
        "counts": counts,
        "editable": req.status in ("draft", "open"),
    }
