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
    services.incident_set_severity(
        incident=incident, user=provider.user, severity="S2", reason="Degraded, still running."
    )
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
        ("incident.severity", "provider"),
        ("incident.responded", "provider"),
        ("incident.restored", "provider"),
        ("incident.signoff", "buyer"),
        ("incident.close", "buyer"),
    ]
    severity = rows[1]
    assert (severity.before, severity.after) == ({"severity": "S1"}, {"severity": "S2"})
    assert severity.reason == "Degraded, still running."
    assert len(entries_for(org=buyer.org, obj_key=key)) == len(rows)
    assert len(entries_for(org=provider.org, obj_key=key)) == len(rows)
    assert not entries_for(org=rival_provider.org, obj_key=key).exists()
    assert chain_verify().intact
