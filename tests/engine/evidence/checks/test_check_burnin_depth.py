"""Burn-in depth: DCGM on every GPU, run duration and step-time tail, IB port error counters,
the runtime each node ran (at burn-in and on recovery) and the collective backend."""

from check_builders import (
    DATA,
    by_name,
    data_item,
    fixture_lines,
    good_items,
    item,
    nccl_text,
    step_csv,
)

from engine.evidence import burnin_report
from engine.evidence.checks import gate, run_checks
from engine.evidence.parsers import parse_evidence, to_json
from engine.failures.recovery_nccl import NcclShape, check_nccl

EIGHT_IDS = ",".join(["2335"] * 8)


def _dcgmi_with_ids(count: int) -> bytes:
    text = (DATA / "dcgmi-diag/diag_r3_dcgm3_all_pass.txt").read_text()
    return text.replace(EIGHT_IDS, ",".join(["2335"] * count).ljust(len(EIGHT_IDS))).encode()


def _swap(items, kind, node, new):
    return [new if (i.kind, i.node) == (kind, node) else i for i in items]


def test_a_dcgm_run_on_one_of_eight_gpus_fails_naming_the_node_and_the_gpus(spec):
    one = item(_dcgmi_with_ids(1), node="gpu-a02", ref="dcgmi-a02.txt")
    results = run_checks(spec, _swap(good_items(), "dcgmi-diag", "gpu-a02", one))
    check = next(r for r in by_name(results, "dcgmi: every GPU diagnosed") if r.node == "gpu-a02")
    assert check.status == "fail" and check.measured.startswith("1 of 8 GPUs")
    assert "gpu-a02" in check.message and "GPU 1, 2, 3, 4, 5, 6, 7 were not" in check.message
    assert by_name(results, "dcgmi: all tests pass")[0].status == "pass"  # every test passed
    verdict = gate(results)
    assert not verdict.passed and check in verdict.failing


def test_per_gpu_rows_at_a_lower_level_fail_on_both_counts(spec):
    diag = data_item("dcgmi-diag/diag_r2_dcgm4_per_gpu_rows_pcie_fail_no_closing_border.txt", "n1")
    results = run_checks(spec, [diag])
    coverage = by_name(results, "dcgmi: every GPU diagnosed")[0]
    assert coverage.status == "fail" and "GPU 2, 3, 4, 5, 6, 7" in coverage.message
    assert by_name(results, "dcgmi: run level")[0].status == "fail"


def test_nvidia_smi_listing_more_gpus_than_agreed_raises_the_count(spec):
    spec["allocation"]["gpus_per_node"] = 4
    items = [
        data_item("dcgmi-diag/diag_r3_dcgm3_all_pass.txt", "gpu-a01"),
        data_item("nvidia-smi-query/table_wide_8xh200_drv560.txt", "gpu-a01"),
    ]
    assert by_name(run_checks(spec, items), "dcgmi: every GPU diagnosed")[0].status == "pass"
    items[0] = item(_dcgmi_with_ids(4), node="gpu-a01")
    check = by_name(run_checks(spec, items), "dcgmi: every GPU diagnosed")[0]
    assert check.status == "fail" and "4 of its 8 GPUs" in check.message


def test_a_sixty_second_run_fails_the_duration(spec):
    results = run_checks(spec, [item(step_csv(minutes=1), ref="steps.csv")])
    check = by_name(results, "step-times: duration")[0]
    assert check.status == "fail" and check.mandatory
    assert "1 min 00 s" in check.measured and check.expected == ">= 2 h"
    assert by_name(results, "step-times: stragglers")[0].status == "pass"  # medians look fine


def test_the_agreed_minutes_and_a_file_without_timestamps(spec):
    spec["thresholds"]["burnin_min_minutes"] = 0.1
    rows = "".join(f"{r},n,{s},1.0\n" for s in range(10) for r in range(16))
    plain = "rank,node,step,seconds\n" + rows  # ten 1 s steps: 10 s by the step sum
    check = by_name(run_checks(spec, [item(plain)]), "step-times: duration")[0]
    assert check.status == "pass" and "added up" in check.measured
    spec["thresholds"]["burnin_min_minutes"] = 1
    check = by_name(run_checks(spec, [item(plain)]), "step-times: duration")[0]
    assert check.status == "fail" and "no timestamp column" in check.measured


def test_a_long_tailed_rank_fails_naming_rank_and_node(spec):
    results = run_checks(spec, [item(step_csv(tail={11: 1.5}), ref="steps.csv")])
    tail = by_name(results, "step-times: tail")[0]
    assert tail.status == "fail" and "rank 11 on gpu-a02" in tail.message
    assert tail.measured.startswith("rank 11 on gpu-a02: p95 2.5")
    # Its median is the others': the median-only checks would have let it through.
    assert by_name(results, "step-times: stragglers")[0].status == "pass"
    assert by_name(results, "step-times: spread")[0].status == "pass"


def test_the_tail_factor_is_agreed_in_the_spec(spec):
    spec["thresholds"]["step_time_tail_factor"] = 3.0
    results = run_checks(spec, [item(step_csv(tail={11: 1.5}))])
    assert by_name(results, "step-times: tail")[0].status == "pass"


def test_ib_counters_over_the_limits_fail_naming_node_port_and_counter(spec):
    bad = data_item("perfquery/perfquery_8ports_lid103_link_downed_symbol_errors.txt", "gpu-a02")
    check = by_name(run_checks(spec, [bad]), "perfquery: error counters")[0]
    assert check.status == "fail" and check.group == "ib-counters" and check.node == "gpu-a02"
    assert "on gpu-a02: LID 103 port 1 LinkDownedCounter 2 (limit 0)" in check.message
    assert "LID 103 port 1 SymbolErrorCounter 57 (limit 10)" in check.message
    assert "LID 105" not in check.message  # 12 discards are within the default 100
    spec["thresholds"]["ib_counter_max"] = {"PortXmitDiscards": 0}
    check = by_name(run_checks(spec, [bad]), "perfquery: error counters")[0]
    assert "on gpu-a02: LID 105 port 1 PortXmitDiscards 12 (limit 0)." in check.message
    assert "One reading: the counters are judged as read" in check.message


def test_clean_ib_counters_pass(spec):
    clean = data_item("perfquery/perfquery_8ports_clean.txt", "gpu-a01")
    check = by_name(run_checks(spec, [clean]), "perfquery: error counters")[0]
    assert check.status == "pass" and "8 port(s)" in check.measured


def test_a_node_on_another_cuda_fails_naming_it(spec):
    text = fixture_lines(override={r: {"cuda_version": "12.4"} for r in range(8, 16)})
    check = by_name(run_checks(spec, [item(text)]), "runtime: CUDA version per node")[0]
    assert check.status == "fail" and check.node == "gpu-a02" and check.group == "runtime"
    assert "gpu-a02 runs 12.4" in check.message and "gpu-a01" not in check.message


def test_kubernetes_version_and_os_image_per_node(spec):
    spec["runtime"].update(
        scheduler="kubernetes", kubernetes_version="1.30", os_image="ubuntu-22.04-cuda"
    )
    extra = {"kubernetes_version": "v1.30.4", "os_image": "ubuntu-22.04-cuda"}
    override = {r: dict(extra) for r in range(16)}
    for r in range(8, 16):
        override[r]["kubernetes_version"] = "v1.29.9"
    results = run_checks(spec, [item(fixture_lines(override=override))])
    assert by_name(results, "runtime: OS image per node")[0].status == "pass"
    k8s = by_name(results, "runtime: Kubernetes version per node")[0]
    assert k8s.status == "fail" and "gpu-a02 runs v1.29.9" in k8s.message


def _with_debug(text: str, lines: list[str]) -> str:
    return text.replace("NCCL version", "\n".join(lines) + "\nNCCL version", 1)


GIN = "{host}:1000:1000 [0] NCCL INFO GIN/Plugin: Assigned plugin {name} type {type} to comm"


def test_the_collective_backend_is_read_and_compared(spec):
    spec["runtime"]["collective_backend"] = "gdaki"
    proxy = [GIN.format(host=h, name="GIN_IB_PROXY", type=2) for h in ("gpu-a01", "gpu-a02")]
    check = by_name(run_checks(spec, [item(_with_debug(nccl_text(), proxy))]),
                    "nccl-tests: collective backend")[0]  # fmt: skip
    assert check.status == "fail" and "gpu-a01 used proxy; gpu-a02 used proxy" in check.message
    gdaki = [GIN.format(host=h, name="GIN_IB_GDAKI", type=3) for h in ("gpu-a01", "gpu-a02")]
    check = by_name(run_checks(spec, [item(_with_debug(nccl_text(), gdaki))]),
                    "nccl-tests: collective backend")[0]  # fmt: skip
    assert check.status == "pass"
    check = by_name(run_checks(spec, [item(nccl_text())]), "nccl-tests: collective backend")[0]
    assert check.status == "inconclusive" and "NCCL_DEBUG=INFO" in check.message


def test_a_different_cuda_on_recovery_fails_naming_the_node(spec):
    def stored(text: str) -> dict:
        return to_json(parse_evidence(text))

    burnin = {"kind": "nccl-tests", "node": None, "name": "ar.txt", "parsed": stored(nccl_text())}
    baseline = burnin_report.baseline_snapshot([burnin], spec, header={})
    assert baseline["node_versions"]["gpu-a02"]["cuda"] == ["12.6"]
    assert baseline["versions"]["cuda"] == ["12.6"]
    banners = [
        "gpu-a01:1000:1000 [0] NCCL INFO NCCL version 2.27.3+cuda12.6",
        "gpu-a02:1008:1008 [0] NCCL INFO NCCL version 2.27.3+cuda12.4",
    ]
    recovery = stored(_with_debug(nccl_text(), banners))
    assert recovery["host_cuda"] == {"gpu-a01": "12.6", "gpu-a02": "12.4"}
    status, measured, _ = check_nccl([recovery], baseline, 5.0, NcclShape(ranks=16))
    assert status == "fail" and "gpu-a02: CUDA 12.4; gpu-a02 ran CUDA 12.6" in measured
    assert "gpu-a01: CUDA" not in measured
    status, _, _ = check_nccl([stored(nccl_text())], baseline, 5.0, NcclShape(ranks=16))
    assert status == "pass"
