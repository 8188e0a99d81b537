"""nvbandwidth: matrices per testcase in text and -j JSON, old and new releases, and the files
a pilot upload gets wrong (cut short, a bad cell, another tool's output)."""

import pytest
from parser_fuzzing import fuzz_tests

from engine.evidence.parsers import detect_kind, nvbandwidth, parse_evidence
from engine.evidence.parsers.base import NvbandwidthError

D = "nvbandwidth/"


def test_host_device_and_peer_matrices_with_their_sums(evidence):
    r = nvbandwidth.parse(evidence(D + "nvbandwidth_v0.8_8xh100_h2d_d2h_d2d_read_ce.txt"))
    assert (r.version, r.driver_version, r.cuda_runtime_version) == ("v0.8", "570.124.06", "12080")
    assert len(r.devices) == 8 and r.devices[0].startswith("0: NVIDIA H100 80GB HBM3")
    h2d = r.testcase("host_to_device_memcpy_ce")[0]
    assert h2d.unit == "GB/s" and h2d.rows == ("0",) and len(h2d.columns) == 8
    assert h2d.total == pytest.approx(441.86) and h2d.line == 19
    assert sum(v for _, _, v in h2d.cells()) == pytest.approx(441.86, abs=0.05)
    d2d = r.testcase("device_to_device_memcpy_read_ce")[0]
    assert len(d2d.cells()) == 56  # the diagonal is N/A, not a zero
    assert d2d.values[0][0] is None and d2d.values[0][1] == pytest.approx(391.81)


def test_a_slow_host_link_shows_in_its_column(evidence):
    r = parse_evidence(evidence(D + "nvbandwidth_v0.8_8xh100_gpu3_host_link_13gbs.txt"))
    assert isinstance(r, nvbandwidth.NvbandwidthResult)
    low = min(r.testcase("host_to_device_memcpy_ce")[0].cells(), key=lambda c: c[2])
    assert low == ("0", "3", pytest.approx(13.41))


def test_bidirectional_testcase_keeps_its_three_matrices_and_counts_the_waived(evidence):
    name = D + "nvbandwidth_v0.8_4xh200_bidir_d2d_read_three_matrices_verbose_waived.txt"
    r = nvbandwidth.parse(evidence(name))
    keys = [m.key for m in r.matrices]
    assert keys == [
        "device_to_device_bidirectional_memcpy_read_ce_read1",
        "device_to_device_bidirectional_memcpy_read_ce_read2",
        "device_to_device_bidirectional_memcpy_read_ce_total",
    ]
    assert "Total" in r.matrices[2].description and r.waived == 1 and not r.errors


def test_latency_matrix_is_in_nanoseconds(evidence):
    r = nvbandwidth.parse(evidence(D + "nvbandwidth_v0.8_2xh100_host_device_latency_ns.txt"))
    assert r.matrices[0].unit == "ns" and r.matrices[0].values == ((812.35, 809.91),)


def test_early_release_without_sum_or_version(evidence):
    data = evidence(D + "nvbandwidth_early_release_running_benchmark_no_sum.txt")
    assert detect_kind(data) == "nvbandwidth"
    r = nvbandwidth.parse(data)
    assert [m.testcase for m in r.matrices] == [
        "host_to_device_bidirectional_memcpy_ce",
        "host_to_device_memcpy_ce",
    ]
    assert r.matrices[1].total is None and r.version is None


def test_json_output_reads_like_the_text(evidence):
    r = parse_evidence(evidence(D + "nvbandwidth_v0.8_json_8xh100_h2d_d2h_d2d.json"))
    assert isinstance(r, nvbandwidth.NvbandwidthResult) and r.json_output
    assert [m.testcase for m in r.matrices] == [
        "host_to_device_memcpy_ce",
        "device_to_host_memcpy_ce",
        "device_to_device_memcpy_read_ce",
    ]
    assert r.waived == 1 and len(r.devices) == 8 and r.driver_version == "570.124.06"
    assert len(r.matrices[2].cells()) == 56


def test_json_sum_too_long_for_a_float_is_no_sum(evidence):
    text = evidence(D + "nvbandwidth_v0.8_json_8xh100_h2d_d2h_d2d.json")
    r = nvbandwidth.parse(text.replace(b'"sum": 441.21', b'"sum": ' + b"9" * 400, 1))
    assert r.matrices[0].total is None and r.matrices[1].total == pytest.approx(444.3)


def test_json_testcase_error_is_kept():
    r = nvbandwidth.parse(
        '{"nvbandwidth": {"testcases": [{"name": "device_to_device_memcpy_read_ce", '
        '"status": "Error", "error": "Peer access is not supported"}]}}'
    )
    assert r.errors == ("device_to_device_memcpy_read_ce: Peer access is not supported",)


@pytest.mark.parametrize(
    ("name", "line", "words"),
    [
        ("broken_truncated_matrix_row.txt", 21, "row 0 has 2 values for 8 columns"),
        ("broken_bad_value.txt", 15, "reads 'fast'"),
        ("broken_json_cut_short.json", 21, "JSON cannot be read"),
    ],
)
def test_errors_name_the_line(evidence, name, line, words):
    with pytest.raises(NvbandwidthError) as exc:
        nvbandwidth.parse(evidence(D + name))
    assert exc.value.line == line and words in str(exc.value)


def test_perf_formatter_lines_stand_for_sum_lines():
    r = nvbandwidth.parse(
        "Running host_to_device_memcpy_ce.\n"
        "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n"
        "           0         1\n"
        " 0     55.21     55.19\n"
        "\n"
        "&&&& PERF host_to_device_memcpy_ce 110.4GB/s\n"
    )
    assert (r.matrices[0].key, r.matrices[0].total) == ("host_to_device_memcpy_ce", 110.4)


def test_a_testcase_cut_off_before_its_matrix_names_its_line():
    with pytest.raises(NvbandwidthError, match="printed no matrix") as exc:
        nvbandwidth.parse("nvbandwidth Version: v0.8\n\nRunning host_to_device_memcpy_ce.\n")
    assert exc.value.line == 3


def test_another_tools_output_is_refused_by_name(evidence):
    perftest_file = evidence("perftest/ib_write_bw_report_gbits_1qp_64k_ndr_client.txt")
    with pytest.raises(NvbandwidthError, match="no nvbandwidth testcase found; first line"):
        nvbandwidth.parse(perftest_file)
    with pytest.raises(NvbandwidthError, match='without an "nvbandwidth" object'):
        nvbandwidth.parse('{"nccl": []}')


(
    test_fuzz_arbitrary_text,
    test_fuzz_truncated_valid_file,
    test_fuzz_random_bytes,
    test_fuzz_spliced_bytes,
    test_fuzz_bad_number_in_a_valid_file,
) = fuzz_tests("nvbandwidth", nvbandwidth.parse, NvbandwidthError)


def test_a_cuda_error_and_a_silent_testcase_are_errors_not_dropped(evidence):
    """nvbandwidth exits on a CUDA error; the testcases it never finished must not vanish."""
    r = nvbandwidth.parse(evidence(D + "nvbandwidth_v0.8_2xh100_d2d_cuda_error_after_h2d.txt"))
    assert [m.testcase for m in r.matrices] == ["host_to_device_memcpy_ce"]
    assert r.errors == (
        "device_to_host_memcpy_ce: started but printed no result (cut short?)",
        "device_to_device_memcpy_read_ce: [CUDA_ERROR_ILLEGAL_ADDRESS] an illegal memory access"
        " was encountered",
    )


def test_a_copy_that_corrupted_data_is_an_error_not_a_file_cut_short(evidence):
    """The copy check found a wrong word and ASSERTed: a faulty link, not a truncated upload."""
    r = nvbandwidth.parse(
        evidence(D + "nvbandwidth_v0.7_8xa100_d2d_read_pattern_mismatch_assert.txt")
    )
    assert r.matrices == () and len(r.devices) == 8 and r.version == "v0.7"
    assert r.errors == (
        "device_to_device_memcpy_read_ce: copied data did not match the pattern written"
        " (first wrong value at 0x70a640000000)",
        "device_to_device_memcpy_read_ce: ASSERT h_errorFlag == 0 failed",
    )


def test_older_releases_print_every_wrong_word_and_it_counts_once():
    r = nvbandwidth.parse(
        "Running device_to_device_memcpy_write_ce.\n"
        " Invalid value when checking the pattern at <0x7f3a40000010>\n"
        " Current offset [ 16/536870912]\n"
        " Invalid value when checking the pattern at <0x7f3a40000014>\n"
        " Current offset [ 20/536870912]\n"
    )
    assert r.errors == (
        "device_to_device_memcpy_write_ce: copied data did not match the pattern written"
        " (first wrong value at 0x7f3a40000010)",
    )


def test_an_nvml_error_names_itself_rather_than_a_silent_testcase():
    """NVML_ASSERT's line as error_handling.h (v0.8) writes it, on setting the CPU affinity."""
    r = nvbandwidth.parse(
        "Running device_to_device_memcpy_read_ce.\n"
        "NVML_ERROR: [Unknown Error] in expression result in void setOptimalCpuAffinity(int)() "
        ": /opt/nvbandwidth/inline_common.h:145\n"
    )
    assert r.errors == ("device_to_device_memcpy_read_ce: [NVML_ERROR] Unknown Error",)
