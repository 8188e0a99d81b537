"""Recovery acceptance on a real reservation (2 nodes × 8 H200, burn-in on gpu-a01 and gpu-a02):
each of the five criteria refuses the wrong evidence by naming the difference, and passes on the
right evidence. Pages show what each compares."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from acceptance.models import Evidence, EvidenceState
from audit.models import AuditEntry
from core.lifecycle import MoveRefused
from incidents import services
from incidents.models import IncidentEvidenceKind
from incidents.selectors import checklist_states
from tests.incidents.helpers import RECOVERY, recovery_file, scenario_upload

pytestmark = pytest.mark.django_db
OPENED = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
RESTORED = OPENED + timedelta(hours=3)


@pytest.fixture
def incident(analysed, buyer) -> Any:
    return services.incident_open(failed_run=analysed, user=buyer.user, now=OPENED)


def _upload(incident: Any, user: Any, kind: str, name: str, node: str = "") -> Any:
    row = services.incident_evidence_upload(
        incident=incident, user=user, kind=kind, upload=recovery_file(name), node=node
    )
    assert row.ok, row.error
    return row


def _item(incident: Any, key: str, now: datetime | None = None) -> Any:
    return {s.key: s for s in checklist_states(incident, now=now)}[key]


# 1. Diagnostics --------------------------------------------------------------------------


def test_a_one_gpu_a10g_diag_does_not_clear_an_h200_node(incident, provider) -> None:
    _upload(incident, provider.user, "dcgmi-diag", "dcgmi_diag_r2_dcgm4_1xa10g_pass.txt",
            node="node-17")  # fmt: skip
    item = _item(incident, "diagnostics")
    assert item.status == "fail" and not item.signable
    assert item.measured == "1 GPU (A10G) tested; the contract's nodes have 8 × H200"
    with pytest.raises(ValidationError, match="checked against uploaded evidence"):
        services.incident_signoff(
            incident=incident, user=incident.opened_by, key="diagnostics", note="fine"
        )
    _upload(incident, provider.user, "dcgmi-diag", "dcgmi_diag_r2_dcgm4_8xh200_pass.txt",
            node="node-17")  # fmt: skip
    assert _item(incident, "diagnostics").status == "pass"


# 2. NCCL on the full node set ------------------------------------------------------------


def test_a_one_rank_nccl_run_is_refused(incident, provider) -> None:
    _upload(incident, provider.user, "nccl-tests", "nccl_all_reduce_1rank_h200.txt")
    item = _item(incident, "nccl_margin_pct")
    assert item.status == "fail"
    assert "1 rank on 1 node ran; the reservation has 16 ranks (2 nodes × 8 GPUs)" in item.measured
    assert "missing gpu-a02" in item.measured


def test_the_burn_in_file_uploaded_again_is_refused(incident, provider, buyer) -> None:
    burnin = incident.reservation.baseline.run
    data = (RECOVERY / "nccl_all_reduce_recovered.txt").read_bytes()
    twin = Evidence(run=burnin, node="", kind="nccl-tests", state=EvidenceState.PARSED,
                    uploaded_by=provider.user)  # fmt: skip
    twin.store(recovery_file("burnin-allreduce-16r.txt", data))
    twin.save()
    Evidence.objects.filter(pk=twin.pk).update(uploaded_at=datetime(2025, 2, 20, 10, 0, tzinfo=UTC))
    _upload(incident, provider.user, "nccl-tests", "nccl_all_reduce_recovered.txt")
    item = _item(incident, "nccl_margin_pct")
    assert (item.status, item.measured) == (
        "finding",
        "this is the burn-in's burnin-allreduce-16r.txt, uploaded 2025-02-20 10:00 UTC; "
        "a recovery run must be new",
    )
    assert not item.passed and item.signable  # blocks the close until explained away
    # Only the item's owner (the buyer, whom the check protects) explains it away, with a reason
    # that is on the audit record; the provider that uploaded it cannot.
    with pytest.raises(MoveRefused):
        services.incident_signoff(
            incident=incident, user=provider.user, key="nccl_margin_pct", note="same fabric"
        )
    services.incident_signoff(
        incident=incident,
        user=buyer.user,
        key="nccl_margin_pct",
        note="We asked for the burn-in file to be resubmitted while the new run is repeated.",
    )
    item = _item(incident, "nccl_margin_pct")
    assert item.status == "signed" and "resubmitted" in item.measured
    entry = AuditEntry.objects.filter(action="incident.signoff").latest("pk")
    assert entry.after["item"] == "nccl_margin_pct" and "resubmitted" in entry.after["note"]


def test_a_new_run_on_the_full_node_set_passes(incident, provider) -> None:
    _upload(incident, provider.user, "nccl-tests", "nccl_all_reduce_recovered.txt")
    item = _item(incident, "nccl_margin_pct")
    assert item.status == "pass", item.measured
    assert "16 ranks on gpu-a01, gpu-a02" in item.expected


def test_without_baseline_hosts_foreign_hosts_are_flagged_against_the_reservation_nodes(
    incident, provider
) -> None:
    # A baseline frozen without the burn-in's hosts; the burn-in's evidence labels still name
    # the reservation's nodes (incidents.selectors.reservation_nodes).
    baseline = incident.reservation.baseline
    rows = [{k: v for k, v in r.items() if k != "hosts"} for r in baseline.snapshot["nccl"]]
    baseline.snapshot = {**baseline.snapshot, "nccl": rows}
    baseline.save(update_fields=["snapshot"])
    for node in ("gpu-a01", "gpu-a02"):
        row = Evidence(run=baseline.run, node=node, kind="ibstat", state=EvidenceState.PARSED,
                       uploaded_by=provider.user)  # fmt: skip
        row.store(recovery_file(f"ibstat-{node}.txt", f"CA '{node}'\n".encode()))
        row.save()
    text = (RECOVERY / "nccl_all_reduce_recovered.txt").read_text().replace("gpu-a02", "gpu-zz9")
    row = services.incident_evidence_upload(
        incident=incident, user=provider.user, kind="nccl-tests", node="",
        upload=recovery_file("recovery-nccl.txt", text.encode()),
    )  # fmt: skip
    assert row.ok, row.error
    item = _item(incident, "nccl_margin_pct")
    assert item.status == "fail"
    assert "1 host outside the reservation: gpu-zz9 (its nodes: gpu-a01, gpu-a02)" in item.measured
    assert "cannot be compared: node set" not in item.measured


# 4. Loss continuity ----------------------------------------------------------------------


def test_a_loss_jump_after_the_checkpoint_is_refused(incident, provider, buyer) -> None:
    listing = (RECOVERY.parent / "checkpoints" / "deepspeed_latest.json").read_bytes()
    services.incident_evidence_upload(
        incident=incident, user=provider.user, kind=IncidentEvidenceKind.CHECKPOINTS,
        upload=recovery_file("ckpt.json", listing),
    )  # fmt: skip
    _upload(incident, buyer.user, "training-log", "megatron_resumed_loss_jump.log")
    item = _item(incident, "loss_continuity")
    assert item.status == "fail" and not item.signable
    assert item.measured == (
        "loss 2.15 at step 1400 (checkpoint, the checkpoint listing) → 3.1 at step 1410 "
        "(resume): +44.2%, over the 5% agreed"
    )
    _upload(incident, buyer.user, "training-log", "megatron_resumed_continuous.log")
    assert _item(incident, "loss_continuity").status == "pass"


def test_an_unreadable_training_log_says_the_line(incident, buyer) -> None:
    row = services.incident_evidence_upload(
        incident=incident, user=buyer.user, kind="training-log",
        upload=recovery_file("loss.csv", b"step,loss\n1400,2.15\n1401,n/a\n"),
    )  # fmt: skip
    assert not row.ok and row.sha256
    assert row.error == "loss.csv: line 3: loss must be a number, found 'n/a'"


# 5. No recurrence ------------------------------------------------------------------------


def test_early_sign_off_is_refused_and_the_page_shows_the_time_left(incident, provider) -> None:
    services.incident_mark(incident=incident, user=provider.user, what="restored", now=RESTORED)
    with pytest.raises(ValidationError, match="can be signed from 2025-03-02 15:00 UTC"):
        services.incident_signoff(
            incident=incident, user=provider.user, key="no_recurrence_hours", note="clean",
            now=RESTORED + timedelta(minutes=1),
        )  # fmt: skip
    item = _item(incident, "no_recurrence_hours", now=RESTORED + timedelta(hours=5, minutes=48))
    assert item.status == "waiting"
    assert item.measured == "18 h 12 min left (until 2025-03-02 15:00 UTC)"
    assert item.expected == "no new incident on node-17 for 24 h after the restore"
    later = RESTORED + timedelta(hours=25)
    assert _item(incident, "no_recurrence_hours", now=later).status == "pass"


def test_a_new_incident_on_the_same_node_is_a_recurrence(
    incident, provider, buyer, django_capture_on_commit_callbacks
) -> None:
    services.incident_mark(incident=incident, user=provider.user, what="restored", now=RESTORED)
    with django_capture_on_commit_callbacks(execute=True):
        again = services.failed_run_upload(
            reservation=incident.reservation, user=provider.user,
            uploads=[scenario_upload("again.tar.gz", noise_lines_per_rank=1)],
        )  # fmt: skip
    again.refresh_from_db()
    second = services.incident_open(
        failed_run=again, user=buyer.user, now=RESTORED + timedelta(hours=3, minutes=12)
    )
    item = _item(incident, "no_recurrence_hours", now=RESTORED + timedelta(hours=30))
    assert item.status == "fail" and not item.signable
    assert item.measured == (
        f"incident #{second.pk} opened 2025-03-01 18:12 UTC on node-17, 3 h 12 min after the "
        "restore"
    )
    page = buyer.client().get(reverse("incidents:incident-detail", args=[incident.pk]))
    assert f"incident #{second.pk} opened" in page.content.decode()
