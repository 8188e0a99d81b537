"""The change log: one party proposes a configuration change or a workaround, the other party
approves or declines it (never the proposer's own party), a change is applied only once approved,
and every step is on the audit trail with the party that took it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from audit.models import AuditEntry
from core.lifecycle import MoveRefused
from incidents import services
from incidents.models import ChangeStatus
from incidents.services import record
from tests.incidents.helpers import recovery_file

pytestmark = pytest.mark.django_db
OPENED = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def incident(analysed, buyer) -> Any:
    return services.incident_open(failed_run=analysed, user=buyer.user, now=OPENED)


def _workaround(incident: Any, provider: Any) -> Any:
    return record.change_propose(
        incident=incident,
        user=provider.user,
        kind="workaround",
        what="Exclude node-17 from the job; restart on 31 nodes from step 1200",
        now=OPENED + timedelta(minutes=20),
    )


def test_the_provider_proposes_and_the_buyer_approves_with_who_and_when(
    incident, provider, buyer
) -> None:
    entry = _workaround(incident, provider)
    assert entry.status == ChangeStatus.PROPOSED and entry.proposed_party == "provider"
    approved = record.change_decide(
        incident=incident, user=buyer.user, entry=entry, approve=True,
        note="Fine while the GPU is replaced", now=OPENED + timedelta(minutes=25),
    )  # fmt: skip
    assert approved.status == ChangeStatus.APPROVED
    assert approved.decided_party == "buyer" and approved.decided_by == buyer.user
    assert approved.decided_at == OPENED + timedelta(minutes=25)
    trail = AuditEntry.objects.filter(obj_key=f"incident:{incident.pk}").order_by("seq")
    actions = [(e.action, e.party) for e in trail if e.action.startswith("incident.change")]
    assert actions == [
        ("incident.change.propose", "provider"),
        ("incident.change.approve", "buyer"),
    ]


def test_the_buyer_may_propose_and_the_provider_approve(incident, provider, buyer) -> None:
    entry = record.change_propose(
        incident=incident, user=buyer.user, kind="config",
        what="NCCL_IB_TIMEOUT=22 in the job's environment",
    )  # fmt: skip
    approved = record.change_decide(
        incident=incident, user=provider.user, entry=entry, approve=True
    )
    assert approved.decided_party == "provider"


def test_the_proposers_own_party_cannot_approve_and_the_refusal_names_it(
    incident, provider, buyer, buyer_colleague
) -> None:
    entry = _workaround(incident, provider)
    with pytest.raises(MoveRefused, match="The provider proposed this change, so only the buyer"):
        record.change_decide(incident=incident, user=provider.user, entry=entry, approve=True)
    theirs = record.change_propose(
        incident=incident, user=buyer.user, kind="config", what="Pin NCCL_ALGO=Ring"
    )
    with pytest.raises(MoveRefused, match="The buyer proposed this change, so only the provider"):
        record.change_decide(
            incident=incident, user=buyer_colleague.user, entry=theirs, approve=True
        )
    entry.refresh_from_db()
    assert entry.status == ChangeStatus.PROPOSED and entry.decided_by is None


def test_a_workaround_is_applied_only_once_approved(incident, provider, buyer) -> None:
    evidence = services.incident_evidence_upload(
        incident=incident, user=provider.user, kind="nccl-tests",
        upload=recovery_file("nccl_all_reduce_recovered.txt"),
    )  # fmt: skip
    entry = _workaround(incident, provider)
    with pytest.raises(ValidationError, match="applied only once approved: the buyer has not"):
        record.change_apply(incident=incident, user=provider.user, entry=entry)
    record.change_decide(incident=incident, user=buyer.user, entry=entry, approve=True)
    applied = record.change_apply(
        incident=incident, user=provider.user, entry=entry,
        checks_rerun="all_reduce_perf on 2 nodes, 16 ranks", evidence=[evidence.pk],
    )  # fmt: skip
    assert applied.status == ChangeStatus.APPLIED and applied.applied_by == provider.user
    assert list(applied.evidence.all()) == [evidence]
    assert applied.checks_rerun == "all_reduce_perf on 2 nodes, 16 ranks"


def test_a_decline_needs_a_reason_and_is_final(incident, provider, buyer) -> None:
    entry = _workaround(incident, provider)
    with pytest.raises(ValidationError) as caught:
        record.change_decide(incident=incident, user=buyer.user, entry=entry, approve=False)
    assert "note" in caught.value.message_dict
    record.change_decide(
        incident=incident, user=buyer.user, entry=entry, approve=False,
        note="We cannot reshard to 31 nodes",
    )  # fmt: skip
    with pytest.raises(ValidationError, match="declined by the buyer"):
        record.change_apply(incident=incident, user=provider.user, entry=entry)
    declined = AuditEntry.objects.get(action="incident.change.decline")
    assert declined.reason == "We cannot reshard to 31 nodes" and declined.party == "buyer"


def test_a_proposal_names_what_changes_and_a_known_kind(incident, provider) -> None:
    with pytest.raises(ValidationError) as caught:
        record.change_propose(incident=incident, user=provider.user, kind="reboot", what=" ")
    errors = caught.value.message_dict
    assert "“reboot” is not a kind of change" in errors["kind"][0]
    assert "Say what changes" in errors["what"][0]


def test_evidence_of_another_incident_is_refused(incident, analysed, provider, buyer) -> None:
    with pytest.raises(ValidationError, match="Evidence #999 is not on this incident's record"):
        record.change_propose(
            incident=incident, user=provider.user, kind="config", what="x", evidence=[999]
        )


def test_on_the_page_the_other_party_approves_and_self_approval_is_flashed(
    incident, provider, buyer
) -> None:
    page = reverse("incidents:incident-detail", args=[incident.pk])
    response = provider.client().post(
        reverse("incidents:change-propose", args=[incident.pk]),
        {"kind": "workaround", "what": "Drain node-17; run on 31 nodes"},
    )
    assert response.status_code == 302
    entry = incident.changes.get()
    html = provider.client().get(page).content.decode()
    assert "Drain node-17; run on 31 nodes" in html and "awaiting the buyer" in html
    decide = reverse("incidents:change-decide", args=[incident.pk, entry.pk])
    assert decide not in html  # no approve button for the proposer's party
    refused = provider.client().post(decide, {"decision": "approve"}, follow=True)
    assert "only the buyer can approve it" in refused.content.decode()
    assert decide in buyer.client().get(page).content.decode()
    buyer.client().post(decide, {"decision": "approve"})
    entry.refresh_from_db()
    assert entry.status == ChangeStatus.APPROVED and entry.decided_by == buyer.user


def test_a_bad_proposal_keeps_what_was_typed(incident, provider) -> None:
    response = provider.client().post(
        reverse("incidents:change-propose", args=[incident.pk]),
        {"kind": "reboot", "what": "Reboot node-17 twice", "checks_rerun": "dcgmi diag -r 3"},
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "“reboot” is not a kind of change" in html
    assert "Reboot node-17 twice" in html and "dcgmi diag -r 3" in html
