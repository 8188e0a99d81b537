"""Recovery acceptance, the pure checks: each criterion refuses the wrong evidence by naming the
difference, and passes on the right evidence. Files in the shapes of the shared samples."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from engine.evidence import burnin_report
from engine.evidence.parsers import parse_evidence, to_json
from engine.failures import FailureInputError, parse_loss_log
from engine.failures.recovery import (
    NodeShape,
    Recurrence,
    check_diagnostics,
    check_recurrence,
)
from engine.failures.recovery_loss import check_loss
from engine.failures.recovery_nccl import NcclShape, check_nccl

RECOVERY = Path(__file__).resolve().parents[2] / "data" / "failures" / "recovery"
H200_NODE = NodeShape(gpus_per_node=8, gpu_model="H200")
RESERVATION = NcclShape(ranks=16, nodes=2, gpus_per_node=8, hosts=("gpu-a01", "gpu-a02"))


def _parsed(name: str, kind: str, text: str | None = None) -> dict[str, Any]:
    data = text.encode() if text is not None else (RECOVERY / name).read_bytes()
    return to_json(parse_evidence(data, kind=kind))


def _baseline() -> dict[str, Any]:
    files = [{"id": 1, "name": "nccl.txt", "sha256": "a" * 64, "node": "", "kind": "nccl-tests",
              "parsed": _parsed("nccl_all_reduce_recovered.txt", "nccl-tests")}]  # fmt: skip
    spec = {"thresholds": {"large_message_bytes": 1 << 30}}
    return burnin_report.baseline_snapshot(files, spec, header={})


# 1. Diagnostics on every GPU of the repaired node -------------------------------------------


def test_a_one_gpu_a10g_diag_is_refused_for_an_eight_gpu_h200_node() -> None:
    doc = {**_parsed("dcgmi_diag_r2_dcgm4_1xa10g_pass.txt", "dcgmi-diag"), "node": "node-17"}
    status, measured, expected = check_diagnostics([doc], ["node-17"], H200_NODE)
    assert status == "fail"
    assert measured == "1 GPU (A10G) tested; the contract's nodes have 8 × H200"
    assert expected == "every test Pass on all 8 × H200 on node-17"


def test_an_eight_gpu_h200_diag_from_the_repaired_node_passes() -> None:
    doc = {**_parsed("dcgmi_diag_r2_dcgm4_8xh200_pass.txt", "dcgmi-diag"), "node": "node-17"}
    status, measured, _ = check_diagnostics([doc], ["node-17"], H200_NODE)
    assert (status, measured) == ("pass", "3 of 3 tests pass on 8 GPUs")


def test_a_dcgm_json_without_device_ids_says_the_model_cannot_be_compared() -> None:
    data = Path(__file__).resolve().parents[2] / "data/evidence/dcgmi-diag/diag_r3_dcgm3_json.json"
    doc = to_json(parse_evidence(data.read_bytes(), kind="dcgmi-diag"))
    status, measured, _ = check_diagnostics([doc], (), NodeShape(gpus_per_node=2, gpu_model="H200"))
    assert status == "fail"  # its GPU Memory test failed
    assert measured == (
        "3 of 4 tests pass on 2 GPUs; GPU model cannot be compared (the file names no known "
        "GPU device id)"
    )


def test_a_diag_labelled_with_another_node_is_refused_by_name() -> None:
    doc = {**_parsed("dcgmi_diag_r2_dcgm4_8xh200_pass.txt", "dcgmi-diag"), "node": "node-3"}
    status, measured, _ = check_diagnostics([doc], ["node-17"], H200_NODE)
    assert status == "fail"
    assert measured == "dcgmi diag from node-3, not a repaired node; none from node-17"


def test_a_diag_whose_file_names_another_host_is_refused() -> None:
    doc = {**_parsed("dcgmi_diag_r2_dcgm4_8xh200_pass.txt", "dcgmi-diag"), "node": "node-17",
           "hostname": "node-3.cluster"}  # fmt: skip
    status, measured, _ = check_diagnostics([doc], ["node-17"], H200_NODE)
    assert status == "finding" and "written on node-3.cluster, labelled node-17" in measured


def test_the_collector_header_naming_another_host_is_refused() -> None:
    """The header `collect_evidence.sh` writes is read by the parser and compared here."""
    body = (RECOVERY / "dcgmi_diag_r2_dcgm4_8xh200_pass.txt").read_text()
    header = (
        "# clusterbid-evidence node=node-3 host=node-3.hel2.example collected=2026-11-04T11:00:00Z"
    )
    doc = {**_parsed("", "dcgmi-diag", f"{header}\n{body}"), "node": "node-17"}
    status, measured, _ = check_diagnostics([doc], ["node-17"], H200_NODE)
    assert status == "finding" and "written on node-3.hel2.example, labelled node-17" in measured


def test_one_diag_file_given_for_two_repaired_nodes_is_refused() -> None:
    doc = _parsed("dcgmi_diag_r2_dcgm4_8xh200_pass.txt", "dcgmi-diag")
    twice = [{**doc, "node": n, "sha256": "3f2a" + "0" * 60} for n in ("node-17", "node-18")]
    status, measured, _ = check_diagnostics(twice, ["node-17", "node-18"], H200_NODE)
    assert status == "finding"
    assert "the same file (SHA-256 3f2a00000000…) is given for node-17 and node-18" in measured
    own = [{**twice[0]}, {**twice[1], "sha256": "9b" + "0" * 62}]
    assert check_diagnostics(own, ["node-17", "node-18"], H200_NODE)[0] == "pass"


# 2. NCCL on the full node set ---------------------------------------------------------------


def test_a_one_rank_nccl_run_is_refused() -> None:
    run = _parsed("nccl_all_reduce_1rank_h200.txt", "nccl-tests")
    status, measured, expected = check_nccl([run], _baseline(), 5.0, RESERVATION)
    assert status == "fail"
    assert "1 rank on 1 node ran; the reservation has 16 ranks (2 nodes × 8 GPUs)" in measured
    assert "node set differs from the burn-in's (missing gpu-a02)" in measured
    assert "16 ranks on gpu-a01, gpu-a02" in expected


def test_one_node_of_two_is_refused_even_at_full_bandwidth() -> None:
    run = _parsed("nccl_all_reduce_1node_8xh200.txt", "nccl-tests")
    status, measured, _ = check_nccl([run], _baseline(), 5.0, RESERVATION)
    assert status == "fail" and "+0.0% vs 434.8" in measured
    assert "8 ranks on 1 node ran; the reservation has 16 ranks" in measured
    assert "missing gpu-a02" in measured


def test_another_nccl_version_or_command_is_refused_by_name() -> None:
    text = (RECOVERY / "nccl_all_reduce_recovered.txt").read_text()
    text = text.replace("NCCL version 2.27.3", "NCCL version 2.21.5").replace(
        "maxBytes 8589934592", "maxBytes 17179869184"
    )
    run = _parsed("", "nccl-tests", text)
    status, measured, _ = check_nccl([run], _baseline(), 5.0, RESERVATION)
    assert status == "fail"
    assert "all_reduce: NCCL 2.21.5; the baseline run used 2.27.3" in measured
    assert "command differs: -e 17179869184 (baseline 8589934592)" in measured


def test_an_rccl_run_s_other_version_is_named_as_rccl_s() -> None:
    text = (RECOVERY / "nccl_all_reduce_recovered.txt").read_text()
    text = text.replace("NCCL version 2.27.3+cuda12.6", "RCCL version : 2.22.3-HEAD:7d8d67c")
    run = _parsed("", "nccl-tests", text)
    status, measured, _ = check_nccl([run], _baseline(), 5.0, RESERVATION)
    assert status == "fail"
    assert "all_reduce: RCCL 2.22.3; the baseline run used 2.27.3" in measured


def test_a_reused_burn_in_file_is_refused_with_the_reason() -> None:
    run = _parsed("nccl_all_reduce_recovered.txt", "nccl-tests")
    why = (
        "this is the burn-in's nccl.txt, uploaded 2025-02-20 10:00 UTC; a recovery run must be new"
    )
    shape = NcclShape(ranks=16, hosts=("gpu-a01", "gpu-a02"), reused=why)
    assert check_nccl([run], _baseline(), 5.0, shape)[:2] == ("finding", why)


def test_the_full_node_set_at_the_baseline_passes() -> None:
    run = _parsed("nccl_all_reduce_recovered.txt", "nccl-tests")
    status, measured, _ = check_nccl([run], _baseline(), 5.0, RESERVATION)
    assert (status, measured) == ("pass", "all_reduce: 434.8 GB/s (+0.0% vs 434.8)")


def test_an_old_baseline_says_what_cannot_be_compared() -> None:
    old = {"nccl": [{"collective": "all_reduce", "large_message_busbw_min_gbps": 434.82}]}
    run = _parsed("nccl_all_reduce_recovered.txt", "nccl-tests")
    status, measured, _ = check_nccl([run], old, 5.0, NcclShape(ranks=16))
    assert status == "pass"
    assert measured.endswith(
        "cannot be compared: node set (the baseline does not name the burn-in's hosts), "
        "all_reduce command (the baseline does not keep it), "
        "all_reduce NCCL version (the baseline does not keep it), "
        "CUDA version on gpu-a01, gpu-a02 (the baseline does not keep it)"
    )


def _without_hosts(baseline: dict[str, Any]) -> dict[str, Any]:
    rows = [{k: v for k, v in r.items() if k != "hosts"} for r in baseline["nccl"]]
    return {**baseline, "nccl": rows}


def test_without_baseline_hosts_a_run_on_foreign_hosts_is_refused() -> None:
    text = (RECOVERY / "nccl_all_reduce_recovered.txt").read_text().replace("gpu-a02", "gpu-zz9")
    run = _parsed("", "nccl-tests", text)
    shape = NcclShape(ranks=16, reservation_nodes=("gpu-a01", "gpu-a02"))
    status, measured, expected = check_nccl([run], _without_hosts(_baseline()), 5.0, shape)
    assert status == "fail"
    assert "1 host outside the reservation: gpu-zz9 (its nodes: gpu-a01, gpu-a02)" in measured
    assert "node set" not in measured  # compared, not "cannot be compared"
    assert "16 ranks on gpu-a01, gpu-a02" in expected


def test_without_baseline_hosts_the_reservation_nodes_pass_by_short_name() -> None:
    text = (RECOVERY / "nccl_all_reduce_recovered.txt").read_text()
    run = _parsed("", "nccl-tests", text.replace("gpu-a02", "GPU-A02.hel2.example"))
    shape = NcclShape(ranks=16, reservation_nodes=("gpu-a01", "gpu-a02"))
    status, measured, _ = check_nccl([run], _without_hosts(_baseline()), 5.0, shape)
    assert status == "pass", measured
    assert "outside the reservation" not in measured and "node set" not in measured


# 4. Loss continuity -------------------------------------------------------------------------


def _log(name: str) -> dict[str, Any]:
    return parse_loss_log((RECOVERY / name).read_bytes(), name=name).to_json()


def test_a_loss_jump_at_resume_is_refused_naming_both_values() -> None:
    status, measured, _ = check_loss(
        _log("megatron_resumed_loss_jump.log"), checkpoint_step=1400, tolerance_pct=5.0
    )
    assert status == "fail"
    assert measured == (
        "loss 2.15 at step 1400 (checkpoint, the checkpoint listing) → 3.1 at step 1410 "
        "(resume): +44.2%, over the 5% agreed"
    )


def test_a_continuous_resume_passes_with_the_marker_as_checkpoint() -> None:
    status, measured, _ = check_loss(
        _log("megatron_resumed_continuous.log"), checkpoint_step=None, tolerance_pct=5.0
    )
    assert status == "pass" and "(checkpoint, the log's resume marker)" in measured


CSV = "step,loss,time\n1398,2.152,t\n1399,2.151,t\n1400,2.150,t\n1401,2.149,t\n"


@pytest.mark.parametrize(
    ("resumed", "status", "says"),
    [
        ("1401,2.160,t\n1402,2.158,t\n", "pass", "2.15 at step 1400"),
        (
            "0,10.91,t\n1,10.90,t\n",
            "fail",
            "starts at step 0 (line 6), not after checkpoint step 1400",
        ),
        ("1401,2.600,t\n", "fail", "+20.9%, over the 5% agreed"),
    ],
)
def test_a_csv_log_continues_restarts_or_jumps(resumed: str, status: str, says: str) -> None:
    log = parse_loss_log(CSV + resumed, name="loss.csv").to_json()
    got, measured, _ = check_loss(log, checkpoint_step=1400, tolerance_pct=5.0)
    assert got == status and says in measured


def test_plain_loop_lines_and_a_line_numbered_error() -> None:
    log = parse_loss_log("step=10 loss=2.5\nstep: 20, loss: 2.4\nstep 30 lr 1e-4 loss 2.3\n")
    assert [p[:2] for p in log.to_json()["points"]] == [[10, 2.5], [20, 2.4], [30, 2.3]]
    with pytest.raises(FailureInputError, match=r"loss.csv: line 3: loss must be a number"):
        parse_loss_log("step,loss\n1,2.0\n2,abc\n", name="loss.csv")
    with pytest.raises(FailureInputError, match="no step and loss found"):
        parse_loss_log("hello\n", name="train.log")


def test_a_resumed_log_that_skips_steps_is_refused() -> None:
    log = parse_loss_log("step,loss\n1501,2.15\n1502,2.15\n", name="resumed.csv").to_json()
    status, measured, _ = check_loss(log, checkpoint_step=1400, tolerance_pct=5.0)
    assert status == "fail" and "is followed by a gap of 100 steps" in measured


def test_a_log_without_a_checkpoint_step_waits() -> None:
    log = parse_loss_log("step,loss\n1401,2.1\n1402,2.1\n").to_json()
    status, measured, _ = check_loss(log, checkpoint_step=None, tolerance_pct=5.0)
    assert status == "waiting" and "checkpoint step is not known" in measured


# 5. No recurrence ---------------------------------------------------------------------------

RESTORED = datetime(2025, 3, 1, 15, 0, tzinfo=UTC)


def test_the_timer_shows_the_time_left_then_passes_by_itself() -> None:
    now = RESTORED + timedelta(hours=5, minutes=48)
    status, measured, _ = check_recurrence(
        hours=24, restored_at=RESTORED, now=now, recurrences=[], nodes=["node-17"]
    )
    assert status == "waiting" and measured.startswith("18 h 12 min left")
    later = RESTORED + timedelta(hours=24, minutes=1)
    assert check_recurrence(hours=24, restored_at=RESTORED, now=later, recurrences=[])[0] == "pass"


def test_a_recurrence_on_the_same_node_fails_naming_the_incident() -> None:
    again = Recurrence(42, RESTORED + timedelta(hours=3, minutes=12), ("node-17",))
    status, measured, _ = check_recurrence(
        hours=24, restored_at=RESTORED, now=RESTORED + timedelta(hours=30),
        recurrences=[again], nodes=["node-17"],
    )  # fmt: skip
    assert status == "fail"
    assert (
        measured
        == "incident #42 opened 2025-03-01 18:12 UTC on node-17, 3 h 12 min after the restore"
    )


def test_hostile_logs_are_named_errors_never_crashes() -> None:
    for data in (b"step " + b"9" * 5000 + b" loss 1\n", b"\x00\xff" * 500):
        with pytest.raises(FailureInputError, match="no step and loss found"):
            parse_loss_log(data, name="train.log")
    with pytest.raises(
        FailureInputError, match=r"line 2: step must be a whole number, found '9{30}'$"
    ):
        parse_loss_log(b"step,loss\n" + b"9" * 5000 + b",1\n", name="loss.csv")
    log = parse_loss_log("step,loss\n1400,inf\n1401,2.1\n1401,2.1\n").to_json()
    status, measured, _ = check_loss(log, checkpoint_step=1400, tolerance_pct=5.0)
    assert status == "fail" and measured == "loss at checkpoint step 1400 is inf (line 2)"
