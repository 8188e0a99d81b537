"""IB port error counters from perfquery and ibqueryerrors: against the agreed limits, as the
difference between a before and an after reading where the evidence has both."""

from check_builders import DATA, by_name, data_item, item

from engine.evidence.checks import gate, run_checks

IBQ = "ibqueryerrors/"
AFTER = IBQ + "ibqueryerrors_fabric_gpu_a02_link_downed_switch_discards.txt"
BEFORE = IBQ + "ibqueryerrors_fabric_before_gpu_a02_symbol_errors.txt"
PQ_BAD = "perfquery/perfquery_8ports_lid103_link_downed_symbol_errors.txt"
FABRIC = "ibqueryerrors: error counters"
PERFQUERY = "perfquery: error counters"


def _header(node: str, at: str) -> str:
    return f"# clusterbid-evidence node={node} host={node} collected={at}\n"


def _body(name: str) -> str:
    """A data file without its collector header."""
    text = (DATA / name).read_text()
    return text.split("\n", 1)[1] if text.startswith("# clusterbid-evidence") else text


def test_fabric_counters_over_the_limits_fail_naming_the_node_port_and_counter(spec):
    check = by_name(run_checks(spec, [data_item(AFTER)]), FABRIC)[0]
    assert check.status == "fail" and check.group == "ib-counters" and check.node == "gpu-a02"
    assert '"gpu-a02 mlx5_3" port 1 LinkDownedCounter 2 (limit 0)' in check.message
    assert '"gpu-a02 mlx5_3" port 1 SymbolErrorCounter 57 (limit 10)' in check.message
    assert "Quantum" not in check.message  # 12 discards are within the default 100
    assert "One reading: the counters are judged as read" in check.message
    assert check.measured.endswith("(as read, one reading)") and check.line == 5


def test_a_clean_fabric_passes_and_stands_in_for_perfquery(spec):
    spec["required_evidence"] = ["perfquery"]
    results = run_checks(spec, [data_item(IBQ + "ibqueryerrors_fabric_clean.txt")])
    check = by_name(results, FABRIC)[0]
    assert check.status == "pass" and check.measured.startswith("208 port(s) within")
    assert not [r for r in results if r.name.startswith("perfquery:")]
    assert gate(results).passed


def test_without_either_tool_the_counters_are_missing(spec):
    spec["required_evidence"] = ["perfquery"]
    (missing,) = by_name(run_checks(spec, []), "perfquery: present")
    assert missing.status == "missing" and missing.mandatory


def test_before_and_after_readings_are_judged_by_their_difference(spec):
    # Given after first: the collector's times put them in order.
    results = run_checks(spec, [data_item(AFTER), data_item(BEFORE)])
    (check,) = by_name(results, FABRIC)
    # As read, 2 link-downs and 57 symbol errors fail; over the burn-in, 2 symbol errors
    # were added and 12 discards on the switch, both within their limits.
    assert check.status == "pass", check.message
    assert check.measured.endswith("(difference over the burn-in)")
    assert "difference between the first and last of 2 readings" in check.message
    assert "(collected 2026-11-30T09:10:00Z and 2026-11-30T13:05:00Z)" in check.message


def test_errors_added_during_the_burn_in_fail(spec):
    spec["thresholds"]["ib_counter_max"] = {"SymbolErrorCounter": 1, "PortXmitDiscards": 0}
    check = by_name(run_checks(spec, [data_item(BEFORE), data_item(AFTER)]), FABRIC)[0]
    assert check.status == "fail"
    assert '"gpu-a02 mlx5_3" port 1 SymbolErrorCounter 2 (limit 1)' in check.message
    assert '"Quantum Mellanox Technologies" port 17 PortXmitDiscards 12 (limit 0)' in check.message


def test_a_counter_that_went_down_was_reset_and_is_judged_as_read(spec):
    after = _header("gpu-a01", "2026-11-30T13:05:00Z") + _body(BEFORE).replace(
        "[LinkDownedCounter == 2]", "[LinkDownedCounter == 1]"
    ).replace("[SymbolErrorCounter == 55]", "[SymbolErrorCounter == 56]")
    check = by_name(run_checks(spec, [data_item(BEFORE), item(after)]), FABRIC)[0]
    assert check.status == "fail"
    assert '"gpu-a02 mlx5_3" port 1 LinkDownedCounter 1 (limit 0)' in check.message
    assert "LinkDownedCounter went down from 2 to 1" in check.message
    assert "the counters were reset between the readings" in check.message


def test_perfquery_read_twice_in_one_file_is_a_difference(spec):
    body = _body(PQ_BAD)
    twice = item(_header("gpu-a02", "2026-11-30T13:05:00Z") + body + body, node="gpu-a02")
    check = by_name(run_checks(spec, [twice]), PERFQUERY)[0]
    assert check.status == "pass" and check.node == "gpu-a02"
    assert check.measured == "8 port(s) within the limits (difference over the burn-in)"


def test_perfquery_files_of_one_node_are_ordered_by_collection_time(spec):
    clean = _body("perfquery/perfquery_8ports_clean.txt")
    before = item(_header("gpu-a02", "2026-11-30T09:00:00Z") + clean, node="gpu-a02", ref="b")
    after = data_item(PQ_BAD, "gpu-a02")  # collected 09:20, with the link-downs
    check = by_name(run_checks(spec, [after, before]), PERFQUERY)[0]
    assert check.status == "fail" and check.evidence_ref == PQ_BAD
    assert "LID 103 port 1 LinkDownedCounter 2 (limit 0)" in check.message
    assert "difference between the first and last of 2 readings" in check.message


def test_counters_the_fabric_output_cannot_bound_are_inconclusive(spec):
    spec["thresholds"]["ib_counter_max"] = {"PortRcvSwitchRelayErrors": 0, "PortRcvErrors": 0}
    data = data_item(IBQ + "ibqueryerrors_extended_thresholds_suppressed.txt")
    check = by_name(run_checks(spec, [data]), FABRIC)[0]
    assert check.status == "inconclusive"
    assert "query failed on gpu-a07 mlx5_2" in check.message
    spec["thresholds"]["ib_counter_max"] = {"SymbolErrorCounter": 10}
    check = by_name(run_checks(spec, [data]), FABRIC)[0]
    assert check.status == "fail" and "SymbolErrorCounter 240 (limit 10)" in check.message
    cut = data_item(IBQ + "ibqueryerrors_cut_short.txt")
    check = by_name(run_checks(spec, [cut]), FABRIC)[0]
    assert (
        check.status == "inconclusive" and "stops before the '## Suppressed:' line" in check.message
    )


def test_a_threshold_above_the_limit_leaves_the_counter_unknown(spec):
    spec["thresholds"]["ib_counter_max"] = {"SymbolErrorCounter": 300}
    text = _body(IBQ + "ibqueryerrors_extended_thresholds_suppressed.txt")
    text = "\n".join(ln for ln in text.split("\n") if not ln.startswith("ibwarn"))
    text = text.replace("##          1 PMA query failures\n", "")
    check = by_name(run_checks(spec, [item(text)]), FABRIC)[0]
    assert check.status == "pass"
    spec["thresholds"]["ib_counter_max"] = {"SymbolErrorCounter": 50}
    check = by_name(run_checks(spec, [item(text.replace("240", "20"))]), FABRIC)[0]
    assert check.status == "inconclusive"
    assert "threshold file lets it reach 100 unshown" in check.message


def test_a_port_missing_from_the_first_reading_is_judged_as_read_and_said_so(spec):
    clean = _body("perfquery/perfquery_8ports_clean.txt")
    first_block_only = clean.split("# Port counters: Lid 101")[0]
    before = item(_header("gpu-a02", "2026-11-30T09:00:00Z") + first_block_only, node="gpu-a02")
    check = by_name(run_checks(spec, [before, data_item(PQ_BAD, "gpu-a02")]), PERFQUERY)[0]
    assert (
        check.status == "fail" and "LID 103 port 1 LinkDownedCounter 2 (limit 0)" in check.message
    )
    assert (
        "LID 101 port 1, LID 102 port 1, LID 103 port 1 and 4 more: not in the first reading"
        in (check.message)
    )
