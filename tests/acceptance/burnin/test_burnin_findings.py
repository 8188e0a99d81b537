"""Findings on burn-in evidence: reuse across node labels, one GPU in two nodes, hardware off
the contract, another host than the label. Each blocks the gate until the files change or a
buyer-side approver explains it away, with a reason in the audit trail."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from acceptance.models import Baseline, Check
from acceptance.services.burnin import evidence_withdraw
from acceptance.services.decision import reservation_accept
from acceptance.services.findings import finding_explain
from audit.models import AuditEntry
from core.lifecycle import MoveRefused
from tests.acceptance.burnin.helpers import GOOD_SET, upload, upload_all

pytestmark = pytest.mark.django_db
FINDINGS = "burnin/findings"
REASON = "Both nodes were imaged from one golden host; the provider re-ran dcgmi on each node."


def _without(*fragments: str, node: str | None = None) -> list[tuple[str, str]]:
    return [
        (name, n)
        for name, n in GOOD_SET
        if not (any(f in name for f in fragments) and (node is None or n == node))
    ]


def _findings(run: Any) -> list[Check]:
    run.refresh_from_db()
    return list(
        Check.objects.filter(run=run, version=run.checked_version)
        .exclude(finding_key="")
        .order_by("position")
    )


@pytest.fixture
def reused(awarded, provider, django_capture_on_commit_callbacks) -> Any:
    """A complete set, except that both nodes' dcgmi diag is the same raw file (same bytes)."""
    files = [
        *_without("dcgmi-diag"),
        ("dcgmi-diag/diag_r3_dcgm3_all_pass.txt", "gpu-a01"),
        ("dcgmi-diag/diag_r3_dcgm3_all_pass.txt", "gpu-a02"),
    ]
    upload_all(awarded.run, provider.user, files, django_capture_on_commit_callbacks)
    return awarded


def test_the_collected_good_set_has_no_findings_and_passes(
    awarded, provider, django_capture_on_commit_callbacks
):
    upload_all(awarded.run, provider.user, GOOD_SET, django_capture_on_commit_callbacks)
    assert awarded.run.gate_passed, awarded.run.gate_summary
    assert _findings(awarded.run) == []


def test_duplicate_evidence_across_node_labels_is_flagged_at_burn_in_and_blocks_the_gate(
    reused, buyer
):
    run = reused.run
    assert run.checks_current and run.gate_passed is False
    (finding,) = _findings(run)
    sha = run.evidence.filter(node="gpu-a02", kind="dcgmi-diag").get().sha256
    assert finding.group == "dcgmi" and finding.status == "fail" and finding.mandatory
    assert finding.message.startswith(
        "diag_r3_dcgm3_all_pass.txt for gpu-a02 is byte-identical to gpu-a01's "
        f"(SHA-256 {sha[:4]}…)"
    )
    assert "dcgmi-diag: same file for gpu-a01 and gpu-a02" in run.gate_summary
    # The page names it beside both files and in the findings section.
    html = buyer.client().get(reverse("burnin:run-detail", args=[run.pk])).content.decode()
    assert html.count("is byte-identical to gpu-a01&#x27;s") >= 3
    assert 'id="findings"' in html and "Explain and re-check" in html


def test_the_same_gpu_uuid_on_two_nodes_is_a_finding(
    awarded, provider, django_capture_on_commit_callbacks
):
    files = [
        *_without("nvidia-smi-query"),
        (f"{FINDINGS}/nvidia-smi-query/gpu-a01_query_uuid.csv", "gpu-a01"),
        (f"{FINDINGS}/nvidia-smi-query/gpu-a02_query_uuid_shares_gpu5_of_a01.csv", "gpu-a02"),
    ]
    upload_all(awarded.run, provider.user, files, django_capture_on_commit_callbacks)
    (finding,) = _findings(awarded.run)
    assert finding.group == "gpu-query" and finding.status == "fail"
    assert finding.finding_key == "same-gpu:gpu-a01+gpu-a02"
    assert (
        "GPU UUID GPU-" in finding.message and "one GPU cannot sit in two nodes" in finding.message
    )
    assert len(finding.finding_evidence) == 2
    assert awarded.run.gate_passed is False


def test_a_collector_header_naming_another_host_is_a_finding(
    awarded, provider, django_capture_on_commit_callbacks
):
    files = [
        *_without("dcgmi-diag", node="gpu-a02"),
        (f"{FINDINGS}/dcgmi-diag/gpu-a02_dcgmi_collected_on_gpu-a07.txt", "gpu-a02"),
    ]
    upload_all(awarded.run, provider.user, files, django_capture_on_commit_callbacks)
    (finding,) = _findings(awarded.run)
    assert finding.message == (
        "gpu-a02_dcgmi_collected_on_gpu-a07.txt for gpu-a02 was collected on "
        "gpu-a07.hel2.example (its collector header), not on gpu-a02."
    )
    assert finding.group == "dcgmi" and awarded.run.gate_passed is False


def test_gpu_model_and_count_off_the_contract_are_findings(
    awarded, provider, django_capture_on_commit_callbacks
):
    files = [
        *_without("all_reduce", "nvidia-smi-topo"),
        (f"{FINDINGS}/nccl-tests/all_reduce_2node_a100.txt", ""),
        ("burnin/gpu-a01/nvidia-smi-topo/hgx_h200_8gpu_8nic_tabs_ansi_header.txt", "gpu-a01"),
        (f"{FINDINGS}/nvidia-smi-topo/gpu-a02_topo_4gpu.txt", "gpu-a02"),
    ]
    upload_all(awarded.run, provider.user, files, django_capture_on_commit_callbacks)
    messages = {c.finding_key: c.message for c in _findings(awarded.run)}
    assert messages["gpu-count:gpu-a02:nvidia-smi-topo"] == (
        "nvidia-smi topo on gpu-a02 lists 4 GPU(s); 8 agreed."
    )
    model = messages["gpu-model::all_reduce_2node_a100.txt"]
    assert model.startswith("16 GPU(s) on the allocation are not H200")
    assert "'NVIDIA A100-SXM4-80GB'" in model
    assert awarded.run.gate_passed is False


def test_the_buyer_approver_explains_a_finding_away_and_the_gate_passes(
    reused, buyer_approver, django_capture_on_commit_callbacks
):
    run = reused.run
    (finding,) = _findings(run)
    with django_capture_on_commit_callbacks(execute=True):
        finding_explain(run=run, user=buyer_approver.user, key=finding.finding_key, reason=REASON)
    run.refresh_from_db()
    assert run.checks_current and run.gate_passed, run.gate_summary
    (explained,) = _findings(run)
    assert explained.status == "warn"
    assert f"Explained by abel: {REASON}" in explained.message
    entry = AuditEntry.objects.get(action="reservation.finding_explain")
    assert entry.reason == REASON and entry.actor == buyer_approver.user and entry.party == "buyer"
    assert entry.after["finding"] == finding.finding_key
    assert len(entry.after["files"]) == 2


@pytest.mark.parametrize("who", ["provider", "buyer_requester"])
def test_only_a_buyer_approver_or_admin_may_explain_a_finding(reused, who, request):
    role = request.getfixturevalue(who)
    (finding,) = _findings(reused.run)
    with pytest.raises(MoveRefused):
        finding_explain(run=reused.run, user=role.user, key=finding.finding_key, reason=REASON)
    assert _findings(reused.run)[0].status == "fail"
    assert not AuditEntry.objects.filter(action="reservation.finding_explain").exists()


def test_an_explanation_needs_a_full_sentence_and_the_form_keeps_what_was_typed(reused, buyer):
    run = reused.run
    (finding,) = _findings(run)
    with pytest.raises(ValidationError) as refused:
        finding_explain(run=run, user=buyer.user, key=finding.finding_key, reason="ok")
    assert "full sentence" in str(refused.value.message_dict["reason"])
    response = buyer.client().post(
        reverse("burnin:run-explain-finding", args=[run.pk]),
        {"explain-key": finding.finding_key, "explain-reason": "same image"},
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "full sentence" in html and "same image</textarea>" in html


def test_the_requester_is_told_who_may_explain(reused, buyer_requester):
    url = reverse("burnin:run-detail", args=[reused.run.pk])
    html = buyer_requester.client().get(url).content.decode()
    assert "Explain and re-check" not in html
    assert "approver" in html


def test_an_explanation_holds_until_the_findings_files_change(
    awarded, provider, buyer, django_capture_on_commit_callbacks
):
    """Another upload leaves it standing; a new file in its place makes it stale."""
    bad = (f"{FINDINGS}/dcgmi-diag/gpu-a02_dcgmi_collected_on_gpu-a07.txt", "gpu-a02")
    files = [*_without("dcgmi-diag", node="gpu-a02"), bad]
    run = awarded.run
    (old,) = upload_all(run, provider.user, [bad], django_capture_on_commit_callbacks)
    upload_all(
        run, provider.user, [f for f in files if f != bad], django_capture_on_commit_callbacks
    )
    (finding,) = _findings(run)
    with django_capture_on_commit_callbacks(execute=True):
        finding_explain(run=run, user=buyer.user, key=finding.finding_key, reason=REASON)
    run.refresh_from_db()
    assert run.gate_passed
    # An unrelated upload: the explanation still holds.
    upload_all(
        run, provider.user, [("burnin/nccl-tests/pair_node-a+node-b.txt", "")],
        django_capture_on_commit_callbacks,
    )  # fmt: skip
    assert _findings(run)[0].status == "warn"
    # The same file name for gpu-a02, other bytes, still from gpu-a07: stale, blocks again.
    content = old.read_bytes().replace(b"09:11:07Z", b"12:40:00Z")
    with django_capture_on_commit_callbacks(execute=True):
        evidence_withdraw(evidence=old, user=provider.user)
        upload(run, provider.user, bad[0], "gpu-a02", content=content)
    (stale,) = _findings(run)
    assert stale.status == "fail"
    assert "they have changed since, so it no longer applies" in stale.message
    assert run.gate_passed is False


def test_an_explained_finding_is_kept_in_the_baseline_at_acceptance(
    reused, buyer, django_capture_on_commit_callbacks
):
    run = reused.run
    (finding,) = _findings(run)
    with django_capture_on_commit_callbacks(execute=True):
        finding_explain(run=run, user=buyer.user, key=finding.finding_key, reason=REASON)
    run.refresh_from_db()
    reservation_accept(reservation=reused.reservation, run=run, user=buyer.user)
    (kept,) = Baseline.objects.get(reservation=reused.reservation).snapshot["findings"]
    assert kept["status"] == "warn" and REASON in kept["message"]
