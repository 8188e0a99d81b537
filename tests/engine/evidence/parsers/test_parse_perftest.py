"""perftest: bandwidth and latency tables under the flags that change them (--report_gbits,
-q, -a, --cpu_util, bidirectional, old releases), and the files a pilot upload gets wrong."""

import pytest
from parser_fuzzing import fuzz_tests

from engine.evidence.parsers import detect_kind, parse_evidence, perftest
from engine.evidence.parsers.base import PerftestError

D = "perftest/"


def test_write_bw_in_gbits(evidence):
    r = perftest.parse(evidence(D + "ib_write_bw_report_gbits_1qp_64k_ndr_client.txt"))
    (run,) = r.runs
    assert (run.test, run.tool, run.measure, run.bw_unit) == (
        "RDMA_Write BW",
        "ib_write_bw",
        "bw",
        "Gb/sec",
    )
    assert run.qps == 1 and run.device == "mlx5_0" and run.settings["Link type"] == "IB"
    (row,) = run.rows
    assert (row.bytes, row.iterations, row.bw_peak, row.bw_average) == (65536, 5000, 393.12, 392.87)
    assert row.msg_rate_mpps == pytest.approx(0.749344) and row.line == 21
    assert run.gbps(row.bw_average) == pytest.approx(392.87)


def test_multi_qp_all_sizes_in_mib_per_second_convert_to_gbits(evidence):
    (run,) = perftest.parse(evidence(D + "ib_write_bw_4qp_all_sizes_mib_per_sec.txt")).runs
    assert run.qps == 4 and run.bw_unit == "MiB/sec" and len(run.rows) == 23
    assert [r.bytes for r in run.rows][:3] == [2, 4, 8] and run.rows[-1].bytes == 2**23
    assert run.gbps(run.rows[-1].bw_average) == pytest.approx(392.7, abs=0.01)


def test_old_read_bw_in_mb_per_second(evidence):
    (run,) = perftest.parse(evidence(D + "ib_read_bw_old_release_mb_per_sec_roce.txt")).runs
    assert run.tool == "ib_read_bw" and run.bw_unit == "MB/sec"
    assert run.settings["Outstand reads"] == "16" and run.settings["Link type"] == "Ethernet"
    # perftest's MB are 2^20 bytes: 11236.17 of them a second are 94.26 Gb/s
    assert run.gbps(run.rows[0].bw_average) == pytest.approx(94.26, abs=0.01)


def test_bidirectional_send_with_cpu_utilisation(evidence):
    (run,) = perftest.parse(evidence(D + "ib_send_bw_bidirectional_gbits_cpu_util.txt")).runs
    assert run.bidirectional and run.tool == "ib_send_bw" and run.test == "Send Bidirectional BW"
    assert run.rows[0].cpu_util_pct == pytest.approx(41.27)


def test_latency_percentiles_per_size(evidence):
    (run,) = perftest.parse(evidence(D + "ib_write_lat_percentiles_three_sizes.txt")).runs
    assert run.tool == "ib_write_lat" and run.measure == "lat" and run.bw_unit is None
    small = run.rows[0]
    assert (small.bytes, small.t_min_us, small.t_typical_us, small.t_avg_us) == (
        2,
        0.98,
        1.01,
        1.02,
    )
    assert (small.p99_us, small.p999_us, small.t_max_us) == (1.21, 4.12, 4.12)
    assert [r.bytes for r in run.rows] == [2, 4096, 65536]


def test_old_latency_table_has_no_percentiles(evidence):
    (run,) = perftest.parse(evidence(D + "ib_write_lat_old_release_no_percentiles.txt")).runs
    assert run.rows[0].t_typical_us == 1.12 and run.rows[0].p99_us is None


def test_one_file_per_hca_loop_keeps_each_run(evidence):
    r = parse_evidence(evidence(D + "ib_write_bw_two_hcas_mlx5_1_at_198gbits.txt"))
    assert isinstance(r, perftest.PerftestResult)
    assert [(run.device, run.rows[0].bw_average) for run in r.runs] == [
        ("mlx5_0", 392.87),
        ("mlx5_1", 198.46),
    ]


def test_a_table_without_its_banner(evidence):
    data = evidence(D + "ib_send_bw_tail_two_lines_table_only.txt")
    assert detect_kind(data) == "perftest"
    (run,) = perftest.parse(data).runs
    assert run.test is None and run.tool is None and run.rows[0].bytes == 4096


def test_a_failed_connection_is_kept_as_errors(evidence):
    r = parse_evidence(evidence(D + "broken_connection_refused.txt"), "perftest")
    assert isinstance(r, perftest.PerftestResult)
    assert not r.runs and r.errors[0] == "Couldn't connect to 10.0.0.12:18515"


@pytest.mark.parametrize(
    ("name", "line", "words"),
    [
        ("broken_cut_short_before_result.txt", 2, "RDMA_Write BW Test has no result row"),
        ("broken_lat_row_missing_percentiles.txt", 19, "result row has 6 values for 9 columns"),
    ],
)
def test_errors_name_the_line(evidence, name, line, words):
    with pytest.raises(PerftestError) as exc:
        perftest.parse(evidence(D + name))
    assert exc.value.line == line and words in str(exc.value)


def test_a_bad_number_names_its_column():
    text = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
    with pytest.raises(PerftestError, match="BW average reads '-nan'") as exc:
        perftest.parse(text + " 65536      5000             393.12             -nan   0.74\n")
    assert exc.value.line == 2


def test_another_tools_output_is_refused_by_name(evidence):
    other = evidence("nvbandwidth/nvbandwidth_v0.8_8xh100_h2d_d2h_d2d_read_ce.txt")
    with pytest.raises(PerftestError, match="no perftest result table"):
        perftest.parse(other)
    assert detect_kind(other) == "nvbandwidth"


(
    test_fuzz_arbitrary_text,
    test_fuzz_truncated_valid_file,
    test_fuzz_random_bytes,
    test_fuzz_spliced_bytes,
    test_fuzz_bad_number_in_a_valid_file,
) = fuzz_tests("perftest", perftest.parse, PerftestError)
