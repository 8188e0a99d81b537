"""dcgmi diag: DCGM 3 and 4 tables, wrapped messages, JSON."""

import pytest
from parser_fuzzing import fuzz_tests

from engine.evidence.parsers import dcgmi_diag, detect_kind
from engine.evidence.parsers.base import DcgmiError

D = "dcgmi-diag/"


def test_all_pass_level_3(evidence):
    r = dcgmi_diag.parse(evidence(D + "diag_r3_dcgm3_all_pass.txt"))
    assert r.level == 3 and r.level_source == "inferred" and r.dcgm_version == "3.3.9"
    assert {t.result for t in r.tests} == {"Pass"} and r.complete
    assert r.gpu_device_ids == ("2335",) * 8


def test_mixed_per_gpu_result_and_wrapped_warning(evidence):
    r = dcgmi_diag.parse(evidence(D + "diag_r3_dcgm3_gpu1_memory_fail_wrapped_warning.txt"))
    mem = next(t for t in r.tests if t.name == "GPU Memory")
    assert mem.result == "Fail" and mem.gpus == {"0": "Pass", "1": "Fail"}
    assert "Thermal violations totaling 21.7 seconds started at 3.2 seconds" in mem.details
    assert "for GPU 1 Verify that the cooling" in mem.details


def test_warn_result(evidence):
    r = dcgmi_diag.parse(evidence(D + "diag_r3_dcgm3_targeted_power_warn.txt"))
    assert [t.name for t in r.tests if t.result == "Warn"] == ["Targeted Power"]


def test_dcgm4_per_gpu_rows_overall_fail_without_closing_border(evidence):
    r = dcgmi_diag.parse(evidence(D + "diag_r2_dcgm4_per_gpu_rows_pcie_fail_no_closing_border.txt"))
    pcie = next(t for t in r.tests if t.name == "pcie")
    assert pcie.result == "Fail" and set(pcie.gpus.values()) == {"Pass"}
    assert "exited with non-zero status 1" in pcie.details
    assert r.level == 2 and r.dcgm_version == "4.2.3" and not r.complete


@pytest.mark.parametrize(
    ("name", "level", "failing", "version"),
    [
        ("diag_r3_dcgm3_json.json", 3, ["GPU Memory"], "3.3.9"),
        ("diag_r2_dcgm4_json_pass.json", 2, [], "4.4.2"),
    ],
)
def test_json(evidence, name, level, failing, version):
    r = dcgmi_diag.parse(evidence(D + name))
    assert r.level == level and r.dcgm_version == version and r.source_format == "json"
    assert [t.name for t in r.tests if t.result == "Fail"] == failing


def test_fragment_with_only_an_error_row(evidence):
    data = evidence(D + "diag_fragment_error_row_only.txt")
    assert detect_kind(data) == "dcgmi-diag"
    r = dcgmi_diag.parse(data)
    assert r.tests[0].result == "Fail" and "row remappings are pending" in r.tests[0].details


def test_level_hint_wins(evidence):
    text = "dcgmi diag -r 4\n" + evidence(D + "diag_r3_dcgm3_all_pass.txt").decode()
    r = dcgmi_diag.parse(text)
    assert (r.level, r.level_source) == (4, "hint")


def test_unknown_result_names_the_line(evidence):
    with pytest.raises(DcgmiError) as exc:
        dcgmi_diag.parse(evidence(D + "broken_unknown_result.txt"))
    assert exc.value.line == 10


def test_json_with_an_integer_too_long_to_read_is_a_dcgmi_error(evidence):
    text = evidence(D + "diag_r3_dcgm3_json.json").decode()
    bad = text.replace('"status": "Pass"', '"status": "Pass", "gpu_id": ' + "9" * 5000, 1)
    with pytest.raises(DcgmiError, match="too many digits"):
        dcgmi_diag.parse(bad)


(
    test_fuzz_arbitrary_text,
    test_fuzz_truncated_valid_file,
    test_fuzz_random_bytes,
    test_fuzz_spliced_bytes,
    test_fuzz_bad_number_in_a_valid_file,
) = fuzz_tests("dcgmi-diag", dcgmi_diag.parse, DcgmiError)


def test_dcgm4_json_keeps_cpu_entities_off_the_gpu_results(evidence):
    """A Grace CPU numbered 1 failing must not read as GPU 1 failing."""
    r = dcgmi_diag.parse(evidence(D + "diag_dcgm4_json_gpu_and_cpu_entities_cpu1_fail.json"))
    by_name = {t.name: t for t in r.tests}
    assert by_name["cpu_eud"].result == "Fail" and by_name["cpu_eud"].gpus == {}
    assert by_name["memory"].gpus == {"0": "Pass", "1": "Pass"}
    assert "CPU 1 failed" in by_name["cpu_eud"].details


def test_a_run_whose_tests_past_level_1_all_skipped_reached_level_1(evidence):
    """DCGM 3.3.1 `-r 3 -j` on a T400 (DCGM issue 139): every test past Deployment is Skip, so
    the run shows level 1, not the 3 its test names would suggest."""
    r = dcgmi_diag.parse(evidence(D + "diag_r3_dcgm331_json_t400_past_level1_skipped.json"))
    assert (r.level, r.level_source, r.source_format, r.gpu_count) == (1, "inferred", "json", 1)
    assert [t.name for t in r.tests if t.result == "Skip"] == [
        "PCIe",
        "GPU Memory",
        "Diagnostic",
        "EUD Test",
        "Targeted Stress",
        "Targeted Power",
        "Memory Bandwidth",
    ]


def test_a_run_level_asked_for_is_not_reached_when_its_tests_were_skipped(evidence):
    """DCGM 3.0.4 `dcgmi diag -r 3` with the prompt pasted (DCGM issue 55): everything past
    Deployment is Skip, so the -r 3 asked for is not the level reached."""
    r = dcgmi_diag.parse(evidence(D + "diag_r3_dcgm304_prompt_past_level1_skipped.txt"))
    assert (r.level, r.level_source) == (1, "inferred")
    assert r.dcgm_version is None and len(r.tests) == 15
