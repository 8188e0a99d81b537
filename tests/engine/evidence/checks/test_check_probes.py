"""Pilot probes against the agreed floors: the slowest host link, the slowest fabric run and the
worst p99 latency decide, and a floor agreed without its probe is missing."""

from check_builders import by_name, data_item, good_items

from engine.evidence.checks import gate, run_checks
from engine.evidence.checks.model import evidence_item_from_text
from engine.evidence.checks.probes import FABRIC_BW, FABRIC_LAT, HOST_DEVICE

NVB = "nvbandwidth/"
PT = "perftest/"


def _floors(spec, **floors):
    spec["thresholds"].update(floors)
    return spec


def test_no_floor_agreed_runs_no_probe_check(spec):
    items = [*good_items(), data_item(NVB + "nvbandwidth_v0.8_8xh100_gpu3_host_link_13gbs.txt")]
    results = run_checks(spec, items)
    assert not [r for r in results if r.group in ("host-device", "fabric-probe")]
    assert gate(results).passed


def test_a_slow_host_link_fails_naming_the_gpu_and_line(spec):
    _floors(spec, host_device_gbps_min=40)
    name = NVB + "nvbandwidth_v0.8_8xh100_gpu3_host_link_13gbs.txt"
    results = run_checks(spec, [*good_items(), data_item(name, node="gpu-a02")])
    check = by_name(results, HOST_DEVICE)[0]
    assert check.status == "fail" and check.mandatory and check.node == "gpu-a02"
    assert check.measured == "13.41 GB/s (GPU 3, host_to_device_memcpy_ce)"
    assert check.expected == ">= 40 GB/s" and check.line == 19
    assert not gate(results).passed


def test_healthy_host_links_and_json_output_pass(spec):
    _floors(spec, host_device_gbps_min=50)
    items = [
        data_item(NVB + "nvbandwidth_v0.8_8xh100_h2d_d2h_d2d_read_ce.txt", node="gpu-a01"),
        data_item(NVB + "nvbandwidth_v0.8_json_8xh100_h2d_d2h_d2d.json", node="gpu-a02"),
    ]
    checks = by_name(run_checks(spec, [*good_items(), *items]), HOST_DEVICE)
    assert [c.status for c in checks] == ["pass", "pass"]


def test_peer_copies_alone_are_inconclusive_for_the_host_floor(spec):
    _floors(spec, host_device_gbps_min=40)
    name = NVB + "nvbandwidth_v0.8_4xh200_bidir_d2d_read_three_matrices_verbose_waived.txt"
    check = by_name(run_checks(spec, [data_item(name)]), HOST_DEVICE)[0]
    assert check.status == "inconclusive" and "no host_to_device" in check.message


def test_the_slowest_hca_decides_the_fabric_floor(spec):
    _floors(spec, fabric_gbps_min=380)
    results = run_checks(spec, [data_item(PT + "ib_write_bw_two_hcas_mlx5_1_at_198gbits.txt")])
    check = by_name(results, FABRIC_BW)[0]
    assert check.status == "fail" and check.line == 43
    assert check.measured == "198.46 Gb/s (ib_write_bw on mlx5_1, 65536 B, 1 QP)"


def test_fabric_floor_reads_mib_per_second_as_gbits(spec):
    _floors(spec, fabric_gbps_min=380)
    results = run_checks(spec, [data_item(PT + "ib_write_bw_4qp_all_sizes_mib_per_sec.txt")])
    check = by_name(results, FABRIC_BW)[0]
    assert check.status == "pass" and "8388608 B, 4 QP" in check.measured


def test_p99_latency_over_the_limit_fails(spec):
    _floors(spec, fabric_p99_latency_us_max=3.0)
    items = [
        data_item(PT + "ib_write_lat_percentiles_three_sizes.txt", node="gpu-a01"),
        data_item(PT + "ib_write_lat_p99_9us_tail_mlx5_3.txt", node="gpu-a02"),
    ]
    checks = by_name(run_checks(spec, items), FABRIC_LAT)
    assert [(c.node, c.status) for c in checks] == [("gpu-a01", "pass"), ("gpu-a02", "fail")]
    assert checks[1].measured == "9.24 µs (ib_write_lat on mlx5_3, 2 B)"


def test_a_latency_table_without_percentiles_is_inconclusive(spec):
    _floors(spec, fabric_p99_latency_us_max=3.0)
    name = PT + "ib_write_lat_old_release_no_percentiles.txt"
    check = by_name(run_checks(spec, [data_item(name)]), FABRIC_LAT)[0]
    assert check.status == "inconclusive" and "99 % percentile" in check.message


def test_a_failed_probe_is_inconclusive_with_its_error(spec):
    _floors(spec, fabric_gbps_min=380)
    # Unrecognisable on its own: the upload names its kind.
    failed = evidence_item_from_text(
        ref="probe.txt", node=None, text=b"Couldn't connect to 10.0.0.12:18515\n", kind="perftest"
    )
    check = by_name(run_checks(spec, [failed]), FABRIC_BW)[0]
    assert check.status == "inconclusive" and "Couldn't connect" in check.message


def test_an_agreed_floor_without_its_probe_is_missing_and_blocks(spec):
    _floors(spec, fabric_gbps_min=380, fabric_p99_latency_us_max=3.0)
    results = run_checks(spec, good_items())
    assert {r.status for r in by_name(results, FABRIC_BW) + by_name(results, FABRIC_LAT)} == {
        "missing"
    }
    assert not gate(results).passed


def test_bidirectional_runs_are_not_held_to_a_one_way_floor(spec):
    _floors(spec, fabric_gbps_min=380)
    name = PT + "ib_send_bw_bidirectional_gbits_cpu_util.txt"
    check = by_name(run_checks(spec, [data_item(name)]), FABRIC_BW)[0]
    assert check.status == "inconclusive"


def test_a_host_floor_met_before_the_run_broke_off_is_inconclusive(spec):
    """h2d met the floor, then d2h printed nothing and the peer copy hit a CUDA error: the
    host links d2h would have measured are unknown, so the floor is not shown to be met."""
    _floors(spec, host_device_gbps_min=40)
    name = NVB + "nvbandwidth_v0.8_2xh100_d2d_cuda_error_after_h2d.txt"
    check = by_name(run_checks(spec, [data_item(name, node="gpu-b03")]), HOST_DEVICE)[0]
    assert check.status == "inconclusive" and check.measured.startswith("55.02 GB/s (GPU 1")
    assert "device_to_host_memcpy_ce: started but printed no result" in check.message


def test_a_host_floor_missed_before_the_run_broke_off_still_fails(spec):
    _floors(spec, host_device_gbps_min=60)
    name = NVB + "nvbandwidth_v0.8_2xh100_d2d_cuda_error_after_h2d.txt"
    check = by_name(run_checks(spec, [data_item(name, node="gpu-b03")]), HOST_DEVICE)[0]
    assert check.status == "fail" and "But the run also reported" not in check.message
