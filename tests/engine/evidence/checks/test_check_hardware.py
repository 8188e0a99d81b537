"""Topology, GPU query, dcgmi and ibstat checks (per node)."""

from check_builders import DATA, by_name, data_item, item

from engine.evidence.checks import run_checks


def checks(spec, group, *items):
    return [r for r in run_checks(spec, list(items)) if r.group == group and r.node]


def test_topology_good_and_bad(spec):
    good = checks(
        spec, "topology", data_item("nvidia-smi-topo/hgx_h200_8gpu_8nic_tabs_ansi_header.txt", "n1")
    )
    assert {r.status for r in good} == {"pass"}
    bad = checks(
        spec,
        "topology",
        data_item("nvidia-smi-topo/hgx_8gpu_one_pair_nv12_one_gpu_far_nic.txt", "n1"),
    )
    nv = by_name(bad, "topology: NVLink class")[0]
    assert nv.status == "fail" and "GPU2-GPU5" in nv.measured.replace("GPU5-GPU2", "GPU2-GPU5")
    nic = by_name(bad, "topology: close NIC per GPU")[0]
    assert nic.status == "fail" and "GPU6" in nic.measured and nic.line is not None


def test_topology_without_nics_fails_rail_check(spec):
    res = checks(spec, "topology", data_item("nvidia-smi-topo/pcie_4gpu_no_nics_spaces.txt", "n1"))
    assert by_name(res, "topology: close NIC per GPU")[0].status == "fail"
    assert by_name(res, "topology: NVLink class")[0].status == "fail"


def test_gpu_query_good(spec):
    res = checks(
        spec, "gpu-query", data_item("nvidia-smi-query/table_wide_8xh200_drv560.txt", "n1")
    )
    assert {r.status for r in res} == {"pass"}, [(r.name, r.message) for r in res]


def test_gpu_query_ecc_count_model_driver(spec):
    spec["runtime"]["driver_version"] = "550.90.07"
    res = checks(
        spec,
        "gpu-query",
        data_item("nvidia-smi-query/query_gpu_csv_units_8xh200_one_ecc.txt", "n1"),
    )
    ecc = by_name(res, "gpu-query: uncorrected ECC")[0]
    assert ecc.status == "fail" and ecc.line == 7 and "GPU 5" in ecc.measured
    assert by_name(res, "gpu-query: driver version")[0].status == "fail"
    spec["gpu_model"] = "H100"
    res = checks(
        spec, "gpu-query", data_item("nvidia-smi-query/table_590_separator_2gpu.txt", "n1")
    )
    assert by_name(res, "gpu-query: GPU model")[0].status == "fail"
    assert by_name(res, "gpu-query: GPU count")[0].status == "fail"


def test_gpu_query_ecc_not_shown_is_inconclusive(spec):
    res = checks(
        spec, "gpu-query", data_item("nvidia-smi-query/table_narrow_pre530_2xa100_ecc_na.txt", "n1")
    )
    assert by_name(res, "gpu-query: uncorrected ECC")[0].status == "inconclusive"


def test_a_pending_row_remap_fails_alike_from_the_q_report_or_the_csv(spec):
    found = [
        by_name(checks(spec, "gpu-query", data_item(f"nvidia-smi-query/{name}", "n1")),
                "gpu-query: row remapping")[0]
        for name in ("nvidia_smi_q_2xa100_gpu1_remap_pending.txt",
                     "query_remapped_rows_gpu1_pending.txt")
    ]  # fmt: skip
    q, csv = found
    assert q.status == csv.status == "fail"
    assert q.measured == csv.measured == "GPU 1: row remappings pending"
    assert (
        q.message
        == csv.message
        == (
            "1 GPU(s) on n1 show row remappings pending: reset the GPU so pending remaps take "
            "effect; a failed remapping needs the GPU replaced."
        )
    )
    assert (q.line, csv.line) == (44, 3)


def test_row_remapping_is_checked_only_where_the_output_carries_it(spec):
    text = (
        "gpu_bus_id, remapped_rows.pending, remapped_rows.failure\n"
        "00000000:07:00.0, 0, 0\n00000000:0F:00.0, [N/A], [N/A]\n"
    )
    unknown = by_name(checks(spec, "gpu-query", item(text, "n1")), "gpu-query: row remapping")[0]
    assert unknown.status == "warn" and unknown.measured == "not shown for 1 GPU(s)"
    clear = checks(spec, "gpu-query", item(text.replace("[N/A], [N/A]", "0, 0"), "n1"))
    assert by_name(clear, "gpu-query: row remapping")[0].status == "pass"
    table = checks(
        spec, "gpu-query", data_item("nvidia-smi-query/table_wide_8xh200_drv560.txt", "n1")
    )
    assert "gpu-query: row remapping" not in {r.name for r in table}


def test_dcgmi_pass_fail_and_warn_policy(spec):
    ok = checks(spec, "dcgmi", data_item("dcgmi-diag/diag_r3_dcgm3_all_pass.txt", "n1"))
    assert {r.status for r in ok} == {"pass"}
    bad = checks(
        spec,
        "dcgmi",
        data_item("dcgmi-diag/diag_r3_dcgm3_gpu1_memory_fail_wrapped_warning.txt", "n1"),
    )
    check = by_name(bad, "dcgmi: all tests pass")[0]
    assert check.status == "fail" and "GPU Memory" in check.message and check.line is not None
    warn_file = "dcgmi-diag/diag_r3_dcgm3_targeted_power_warn.txt"
    assert (
        by_name(checks(spec, "dcgmi", data_item(warn_file, "n1")), "dcgmi: all tests pass")[
            0
        ].status
        == "fail"
    )
    spec["thresholds"]["dcgm_warn_policy"] = "warn"
    assert (
        by_name(checks(spec, "dcgmi", data_item(warn_file, "n1")), "dcgmi: all tests pass")[
            0
        ].status
        == "warn"
    )


def test_dcgmi_level_too_low(spec):
    res = checks(spec, "dcgmi", data_item("dcgmi-diag/diag_r2_dcgm4_json_pass.json", "n1"))
    assert by_name(res, "dcgmi: run level")[0].status == "fail"


def test_dcgmi_level_3_with_every_test_past_level_1_skipped_fails_the_level(spec):
    name = "dcgmi-diag/diag_r3_dcgm331_json_t400_past_level1_skipped.json"
    level = by_name(checks(spec, "dcgmi", data_item(name, "n1")), "dcgmi: run level")[0]
    assert level.status == "fail" and level.measured == "level 1 (inferred)"
    assert level.message == "dcgmi diag on n1 reached level 1; 3 agreed."


def test_ibstat_good(spec):
    res = checks(spec, "ibstat", data_item("ibstat/ibstat_8x400g_ndr_plus_bond_tabs.txt", "n1"))
    assert {r.status for r in res} == {"pass"}


def test_ibstat_down_and_slow_ports(spec):
    res = checks(
        spec, "ibstat", data_item("ibstat/ibstat_one_port_down_one_at_200g_spaces.txt", "n1")
    )
    ports = by_name(res, "ibstat: ports active at rate")[0]
    assert ports.status == "fail" and "mlx5_5" in ports.measured and ports.line is not None
    count = by_name(res, "ibstat: ports per node")[0]
    assert count.status == "fail" and count.measured.startswith("6 healthy")


def test_ibstat_too_few_ports_and_ibpanic(spec):
    res = checks(spec, "ibstat", data_item("ibstat/ibstat_ibpanic_after_7_cas.txt", "n1"))
    assert by_name(res, "ibstat: ports active at rate")[0].status == "fail"
    assert by_name(res, "ibstat: ports per node")[0].status == "fail"


def test_ibstat_without_a_node_label_counts_ports_for_the_whole_allocation(spec):
    """One node's ibstat, unlabelled, on two nodes: 8 ports are not 8 per node."""
    res = [
        r
        for r in run_checks(spec, [data_item("ibstat/ibstat_8x400g_ndr_plus_bond_tabs.txt")])
        if r.name == "ibstat: ports per node"
    ]
    (count,) = res
    assert count.status == "fail" and count.expected.startswith(">= 16 InfiniBand ports")
    assert "8 per node × 2 nodes" in count.message


def test_ibstat_active_port_without_a_rate_says_so(spec):
    raw = (DATA / "ibstat/ibstat_8x400g_ndr_plus_bond_tabs.txt").read_text()
    raw = raw.replace("\t\tRate: 400\n", "\n", 1)  # the first port prints no rate
    res = checks(spec, "ibstat", item(raw, node="n1"))
    ports = by_name(res, "ibstat: ports active at rate")[0]
    assert ports.status == "fail" and ports.measured.endswith("at an unknown rate")
    assert "None" not in ports.measured


def test_a_driver_the_fixture_leaves_empty_is_reported_not_agreed(spec):
    """Never skipped in silence: what ran is shown, as a warning that does not block the gate."""
    spec["runtime"]["driver_version"] = None
    res = checks(
        spec,
        "gpu-query",
        data_item("nvidia-smi-query/query_gpu_csv_units_8xh200_one_ecc.txt", "n1"),
    )
    driver = by_name(res, "gpu-query: driver version")[0]
    assert (driver.status, driver.expected) == ("warn", "not agreed")
    assert driver.measured not in ("", "not shown") and "agrees no driver version" in driver.message


def test_gpu_query_names_a_gpu_the_driver_lost(spec):
    spec["gpus_per_node"] = 2
    res = checks(
        spec,
        "gpu-query",
        data_item("nvidia-smi-query/table_kmd_header_gpu1_lost_device_handle.txt", "n1"),
    )
    count = by_name(res, "gpu-query: GPU count")[0]
    assert count.status == "fail" and count.measured == "2 GPUs, 1 lost"
    assert "device handle for GPU1: 0000:41:00.0" in count.message
