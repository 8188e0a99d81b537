"""ibqueryerrors: the fabric's ports with a counter over the tool's threshold, and its summary."""

import pytest
from parser_fuzzing import fuzz_tests

from engine.evidence.parsers import detect_kind, ibqueryerrors, parse_evidence, to_json
from engine.evidence.parsers.base import IbqueryerrorsError
from engine.evidence.parsers.restore import from_json

D = "ibqueryerrors/"


def test_ports_over_the_threshold_per_node(evidence):
    data = evidence(D + "ibqueryerrors_fabric_gpu_a02_link_downed_switch_discards.txt")
    assert detect_kind(data) == "ibqueryerrors"
    r = parse_evidence(data)
    assert isinstance(r, ibqueryerrors.IbqueryerrorsResult) and r.origin is not None
    switch, hca = r.ports
    assert switch.switch and switch.port == 17 and switch.counters["PortXmitDiscards"] == 12
    assert switch.host is None and switch.label == '"Quantum Mellanox Technologies" port 17'
    assert hca.node == "gpu-a02 mlx5_3" and hca.host == "gpu-a02" and hca.line == 5
    assert hca.counters == {
        "SymbolErrorCounter": 57,
        "LinkErrorRecoveryCounter": 3,
        "LinkDownedCounter": 2,
    }
    assert (r.nodes_checked, r.ports_checked, r.complete) == (18, 208, True)
    assert r.thresholds == {} and r.suppressed == () and not r.errors
    # Unlisted counters are at most the default threshold, 0.
    assert r.bound("PortRcvErrors") == 0


def test_a_clean_fabric_lists_no_port(evidence):
    r = ibqueryerrors.parse(evidence(D + "ibqueryerrors_fabric_clean.txt"))
    assert r.ports == () and r.complete and r.ports_checked == 208


def test_extended_values_thresholds_suppressed_and_failures(evidence):
    r = ibqueryerrors.parse(evidence(D + "ibqueryerrors_extended_thresholds_suppressed.txt"))
    all_row, port17, hca = r.ports
    assert all_row.port is None and all_row.label.endswith("all ports")
    assert port17.counters["PortXmitData"] == 987654321012
    assert hca.counters == {"SymbolErrorCounter": 240}
    assert r.thresholds == {"SymbolErrorCounter": 100, "PortXmitWait": 100000}
    assert r.suppressed == ("PortRcvSwitchRelayErrors",) and r.pma_failures == 1
    assert any("query failed on gpu-a07" in e for e in r.errors)
    assert r.bound("SymbolErrorCounter") == 100 and r.bound("PortRcvSwitchRelayErrors") is None


def test_legacy_names_map_to_current_ones(evidence):
    (port,) = ibqueryerrors.parse(evidence(D + "ibqueryerrors_legacy_names.txt")).ports
    assert port.counters == {"SymbolErrorCounter": 4, "LinkDownedCounter": 1, "PortXmitDiscards": 7}


def test_output_cut_short_bounds_nothing(evidence):
    r = ibqueryerrors.parse(evidence(D + "ibqueryerrors_cut_short.txt"))
    assert not r.complete and r.bound("LinkDownedCounter") is None


def test_stored_result_is_rebuilt(evidence):
    r = parse_evidence(evidence(D + "ibqueryerrors_extended_thresholds_suppressed.txt"))
    assert from_json(to_json(r)) == r


@pytest.mark.parametrize(
    ("name", "line", "words"),
    [
        ("broken_port_before_node.txt", 1, "before any 'Errors for"),
        ("broken_bad_value.txt", 2, "LinkDownedCounter must be a whole number"),
    ],
)
def test_errors_name_the_line(evidence, name, line, words):
    with pytest.raises(IbqueryerrorsError) as exc:
        ibqueryerrors.parse(evidence(D + name))
    assert exc.value.line == line and words in str(exc.value)


def test_a_port_line_without_counters_is_refused():
    with pytest.raises(IbqueryerrorsError, match="line 2: a port line must list"):
        ibqueryerrors.parse('Errors for "n1 mlx5_0"\n   GUID 0x1 port 1: garbage\n')


def test_text_without_ports_or_summary_is_refused():
    with pytest.raises(IbqueryerrorsError, match="no ibqueryerrors port line"):
        ibqueryerrors.parse("hello\n")


(
    test_fuzz_arbitrary_text,
    test_fuzz_truncated_valid_file,
    test_fuzz_random_bytes,
    test_fuzz_spliced_bytes,
    test_fuzz_bad_number_in_a_valid_file,
) = fuzz_tests("ibqueryerrors", ibqueryerrors.parse, IbqueryerrorsError)


def test_ibcheckerrors_output_is_refused_by_name_with_its_line(evidence):
    """The legacy script shows only counts above its own thresholds: nothing can be read as 0."""
    with pytest.raises(IbqueryerrorsError, match="this is ibcheckerrors output") as exc:
        ibqueryerrors.parse(evidence(D + "broken_ibcheckerrors_voltaire_warn_lines.txt"))
    assert exc.value.line == 1 and "upload ibqueryerrors" in str(exc.value)


def test_a_summary_without_the_closing_suppressed_line_bounds_nothing(evidence):
    """A clean ibcheckerrors run prints only the two summary lines; ibqueryerrors always ends
    with '## Suppressed:', so without it no unlisted counter is known to be 0."""
    r = ibqueryerrors.parse(evidence(D + "ibcheckerrors_clean_summary_only.txt"))
    assert (r.nodes_checked, r.ports_checked, r.ports) == (25, 48, ())
    assert not r.complete and r.bound("SymbolErrorCounter") is None
