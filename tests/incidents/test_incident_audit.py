"""An incident's life on the audit trail: open, severity, response, sign-offs, close, each with
the side that acted; both parties read it, the rival nobody."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from audit.models import AuditEntry
from audit.selectors import chain_verify, entries_for
from incidents import services
from incidents.selectors import checklist_states
from tests.incidents.helpers import recovery_file

pytestmark = pytest.mark.django_db


def test_every_incident_move_is_on_the_record(analysed, buyer, provider, rival_provider):
    incident = services.incident_open(failed_run=analysed, user=buyer.user)
    services.incident_severity_propose(
        incident=incident, user=provider.user, severity="S2", reason="Degraded, still running."
    )
    services.incident_severity_accept(incident=incident, user=buyer.user, reason="Agreed.")
    incident.refresh_from_db()
    services.incident_mark(incident=incident, user=provider.user, what="responded")
    for name, kind in [
        ("nccl_all_reduce_recovered.txt", "nccl-tests"),
        ("pre_incident_steps.csv", "smoke-steps"),
        ("megatron_resumed_continuous.log", "training-log"),
    ]:
        services.incident_evidence_upload(
            incident=incident, user=provider.user, kind=kind, upload=recovery_file(name)
        )
    restored = timezone.now() - timedelta(days=3)
    services.incident_mark(incident=incident, user=provider.user, what="restored", now=restored)
    # Loss continuity is read from the training log, and no recurrence has passed by itself
    # (restored three days ago): only the diagnostics, with no dcgmi run uploaded, are signed.
    for state in [s for s in checklist_states(incident) if not s.passed]:
        services.incident_signoff(incident=incident, user=buyer.user, key=state.key, note="ok")
    services.incident_close(incident=incident, user=buyer.user, confirmed=True)

    key = f"incident:{incident.pk}"
    rows = list(AuditEntry.objects.filter(obj_key=key).order_by("seq"))
    assert [(r.action, r.party) for r in rows] == [
        ("incident.open", "buyer"),
        ("incident.severity.propose", "provider"),
        ("incident.severity.accept", "buyer"),
        ("incident.responded", "provider"),
        *[("incident.evidence", "provider")] * 3,
        ("incident.restored", "provider"),
        ("incident.signoff", "buyer"),
        ("incident.close", "buyer"),
    ]
    proposed, accepted = rows[1], rows[2]
    assert proposed.before == {"severity": "S1"} and proposed.after["proposed"] == "S2"
    assert proposed.reason == "Degraded, still running."
    assert (accepted.before, accepted.after["severity"]) == ({"severity": "S1"}, "S2")
    assert accepted.after["proposed_by"] == "nora" and accepted.reason == "Agreed."
    evidence = [r.after for r in rows if r.action == "incident.evidence"]
    assert [(e["file"], e["read"], len(e["sha256"])) for e in evidence] == [
        ("nccl_all_reduce_recovered.txt", True, 64),
        ("pre_incident_steps.csv", True, 64),
        ("megatron_resumed_continuous.log", True, 64),
    ]
    assert len(entries_for(org=buyer.org, obj_key=key)) == len(rows)
    assert len(entries_for(org=provider.org, obj_key=key)) == len(rows)
    assert not entries_for(org=rival_provider.org, obj_key=key).exists()
    assert chain_verify().intact
