"""The GPU monitor capture (nvidia-smi dmon) beside a burn-in: a GPU lost mid-capture and a
double-bit ECC error fail naming the GPU and line, PCIe replays that rose warn, and an agreed
temperature limit is judged on the hottest reading."""

from check_builders import by_name, data_item, good_items, item

from engine.evidence.checks import gate, run_checks
from engine.evidence.checks.gpu_monitor import DBE, LOST, REPLAYS

D = "nvidia-smi-dmon/"
GPU_TEMP = "nvidia-smi-dmon: GPU temperature"
MEMORY_TEMP = "nvidia-smi-dmon: memory temperature"


def _require_dmon(spec):
    spec["required_evidence"].append("nvidia-smi-dmon")
    return spec


def test_a_clean_capture_passes_and_is_not_required_by_default(spec):
    capture = data_item(D + "dmon_pucvmet_DT_8xh100_under_load_header_repeats.txt", "gpu-a01")
    results = run_checks(spec, [*good_items(), capture])
    lost, dbe, replays = (
        by_name(results, LOST)[0],
        by_name(results, DBE)[0],
        by_name(results, REPLAYS)[0],
    )
    assert (lost.status, dbe.status, replays.status) == ("pass", "pass", "pass")
    assert not lost.mandatory and lost.group == "gpu-monitor" and lost.node == "gpu-a01"
    assert lost.measured == "8 GPUs, 56 rows"
    assert gate(results).passed
    # Without a capture there is no row at all: the burn-in does not need one.
    assert not [r for r in run_checks(spec, good_items()) if r.group == "gpu-monitor"]


def test_a_gpu_lost_mid_capture_fails_naming_the_gpu_and_line_even_when_not_required(spec):
    capture = data_item(D + "dmon_pucet_4xv100_gpu2_row_cut_short_mid_capture.txt", "gpu-a02")
    results = run_checks(spec, [*good_items(), capture])
    (lost,) = by_name(results, LOST)
    assert lost.status == "fail" and lost.mandatory and lost.line == 17
    assert lost.measured == "1 of 4 GPUs lost, first GPU 2 at line 17"
    assert "GPU 2 stopped reporting at line 17" in lost.message
    assert "after 3 samples with readings" in lost.message
    assert not gate(results).passed


def test_a_capture_ending_on_the_lost_gpus_row_and_a_row_of_dashes_both_fail(spec):
    ended = data_item(D + "dmon_pucet_4xk80_last_row_cut_short_gpu1_lost.txt")
    dashes = data_item(D + "dmon_pu_T_2xh100_gpu1_all_dashes_after_readings.txt")
    for capture, line, how in ((ended, 11, "stops after the GPU index"), (dashes, 11, "'-'")):
        (lost,) = by_name(run_checks(spec, [capture]), LOST)
        assert lost.status == "fail" and lost.line == line and how in lost.message


def test_a_capture_cut_mid_row_on_its_last_line_is_not_a_lost_gpu(spec):
    text = (
        "# gpu    pwr  gtemp  mtemp\n"
        "# Idx      W      C      C\n"
        "    0    402     51     60\n"
        "    0    405     5"
    )
    (lost,) = by_name(run_checks(_require_dmon(spec), [item(text)]), LOST)
    assert lost.status == "pass" and lost.mandatory


def test_the_driver_saying_a_gpu_is_lost_fails(spec):
    text = (
        "# gpu    pwr  gtemp\n# Idx      W      C\n    0    402     51\n"
        "Unable to determine the device handle for GPU0000:05:00.0: GPU is lost.\n"
    )
    (lost,) = by_name(run_checks(spec, [item(text)]), LOST)
    assert lost.status == "fail" and lost.line == 4 and "GPU is lost" in lost.message


def test_double_bit_ecc_fails_and_rising_pcie_replays_warn(spec):
    capture = data_item(D + "dmon_pe_2xh200_gpu1_dbe_gpu0_pcie_replays_rising.txt", "gpu-a01")
    results = run_checks(spec, [*good_items(), capture])
    (dbe,) = by_name(results, DBE)
    assert dbe.status == "fail" and dbe.mandatory and dbe.line == 12
    assert (
        dbe.measured == "GPU 1: 2 at line 12"
        and dbe.expected == "<= 0 double-bit ECC errors per GPU"
    )
    (replays,) = by_name(results, REPLAYS)
    assert replays.status == "warn" and not replays.mandatory and replays.line == 13
    assert "GPU 0 by 12 (from 12, line 13)" in replays.message
    assert not gate(results).passed


def test_the_ecc_limit_the_fixture_agrees_also_holds_dmon(spec):
    spec["thresholds"]["ecc_uncorrected_max"] = 2
    capture = data_item(D + "dmon_pe_2xh200_gpu1_dbe_gpu0_pcie_replays_rising.txt")
    (dbe,) = by_name(run_checks(spec, [capture]), DBE)
    assert dbe.status == "pass" and not dbe.mandatory


def test_ecc_off_on_every_row_is_inconclusive_and_blocks_only_when_required(spec):
    text = "# gpu  sbecc  dbecc    pci\n# Idx   errs   errs   errs\n    0      -      -      0\n"
    (dbe,) = by_name(run_checks(spec, [item(text)]), DBE)
    assert dbe.status == "inconclusive" and not dbe.mandatory
    (dbe,) = by_name(run_checks(_require_dmon(spec), [item(text)]), DBE)
    assert dbe.mandatory and "ECC is off or not reported" in dbe.message


def test_an_agreed_temperature_limit_is_judged_on_the_hottest_reading(spec):
    spec["thresholds"].update(gpu_temp_limit_c=70, memory_temp_limit_c=78)
    capture = data_item(D + "dmon_pe_2xh200_gpu1_dbe_gpu0_pcie_replays_rising.txt")
    results = run_checks(spec, [capture])
    (gpu,) = by_name(results, GPU_TEMP)
    assert gpu.status == "pass" and gpu.mandatory and gpu.measured == "max 66 C over 2 GPUs"
    (memory,) = by_name(results, MEMORY_TEMP)
    assert memory.status == "fail" and memory.line == 3 and memory.expected == "< 78 C"
    assert "GPU 0 reached a memory temperature of 79 C at line 3" in memory.message


def test_an_agreed_limit_without_a_capture_is_missing(spec):
    spec["thresholds"]["gpu_temp_limit_c"] = 85
    (row,) = by_name(run_checks(spec, good_items()), GPU_TEMP)
    assert (
        row.status == "missing"
        and row.mandatory
        and not gate(run_checks(spec, good_items())).passed
    )


def test_a_required_capture_that_is_absent_is_missing(spec):
    results = run_checks(_require_dmon(spec), good_items())
    (row,) = by_name(results, "nvidia-smi-dmon: present")
    assert row.status == "missing" and row.group == "gpu-monitor"
