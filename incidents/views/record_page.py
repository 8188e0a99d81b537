"""What the incident page's record section needs (templates/incidents/_record.html): the
change log with the moves this user may make on each entry, the repair estimates (latest and
history), the ticket text, and the forms (bound ones keep what was typed)."""

from __future__ import annotations

from typing import Any

from core.lifecycle import Actor
from incidents.forms_record import ChangeApplyForm, ChangeProposeForm, EstimateForm
from incidents.lifecycle import INCIDENT
from incidents.models import ChangeStatus, Incident
from incidents.ticket import change_lines, ticket_for


def record_context(incident: Incident, *, actor: Actor, forms: dict[str, Any]) -> dict[str, Any]:
    party = "buyer" if "buyer" in actor.roles else ("provider" if actor.roles else "")
    moves = INCIDENT.decisions(
        incident, actor=actor, names=["change_propose", "change_apply", "estimate"]
    )
    changes = []
    for entry in (
        incident.changes.select_related("proposed_by", "decided_by", "applied_by")
        .prefetch_related("evidence")
        .order_by("proposed_at", "pk")
    ):
        pending = entry.status == ChangeStatus.PROPOSED and incident.is_open
        changes.append(
            {
                "entry": entry,
                "lines": change_lines(entry),
                "may_decide": pending and bool(party) and party != entry.proposed_party,
                "may_apply": entry.status == ChangeStatus.APPROVED
                and moves["change_apply"].allowed,
                "apply_form": ChangeApplyForm(incident=incident, auto_id=f"apply{entry.pk}_%s"),
            }
        )
    estimates = list(incident.estimates.select_related("posted_by").order_by("-revision"))
    return {
        "record_party": party,
        "record_moves": moves,
        "changes": changes,
        "estimate": estimates[0] if estimates else None,
        "estimate_history": estimates[1:],
        "ticket_text": ticket_for(incident).text(),
        "change_form": forms.get("change_form") or ChangeProposeForm(incident=incident),
        "estimate_form": forms.get("estimate_form") or EstimateForm(),
    }
