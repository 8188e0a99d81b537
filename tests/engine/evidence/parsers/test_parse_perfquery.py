"""perfquery port counters: one block per port, current and legacy counter names."""

import pytest
from parser_fuzzing import fuzz_tests

from engine.evidence.parsers import detect_kind, parse_evidence, perfquery
from engine.evidence.parsers.base import PerfqueryError

D = "perfquery/"


def test_eight_clean_ports(evidence):
    r = perfquery.parse(evidence(D + "perfquery_8ports_clean.txt"))
    assert [p.lid for p in r.ports] == list(range(100, 108)) and {p.port for p in r.ports} == {1}
    first = r.ports[0]
    assert first.counters["LinkDownedCounter"] == 0 and first.counters["SymbolErrorCounter"] == 0
    assert first.counters["PortXmitData"] == 4198123456 and "CounterSelect" not in first.counters
    assert first.line == 1 and first.label == "LID 100 port 1" and not r.errors


def test_counters_over_zero_are_kept_per_port(evidence):
    r = parse_evidence(evidence(D + "perfquery_8ports_lid103_link_downed_symbol_errors.txt"))
    assert isinstance(r, perfquery.PerfqueryResult) and r.origin is not None
    bad = next(p for p in r.ports if p.lid == 103)
    assert (bad.counters["LinkDownedCounter"], bad.counters["SymbolErrorCounter"]) == (2, 57)
    assert next(p for p in r.ports if p.lid == 105).counters["PortXmitDiscards"] == 12


def test_legacy_names_map_to_current_ones(evidence):
    data = evidence(D + "perfquery_legacy_names_link_downed.txt")
    assert detect_kind(data) == "perfquery"
    port = perfquery.parse(data).ports[0]
    assert port.counters["LinkDownedCounter"] == 1 and port.counters["PortRcvData"] == 2411533950
    assert "LinkDowned" not in port.counters


def test_all_ports_summed_and_ibwarn_kept():
    r = perfquery.parse(
        "ibwarn: [3121] mad_rpc: _do_madrpc failed; dport (Lid 9)\n"
        "# Port counters: Lid 9 all ports (CapMask: 0x5A00)\n"
        "SymbolErrorCounter:..............4\n"
    )
    assert r.ports[0].port is None and r.ports[0].label == "LID 9" and r.errors


@pytest.mark.parametrize(
    ("name", "line", "words"),
    [
        ("broken_counter_before_header.txt", 1, "before any"),
        ("broken_bad_value.txt", 6, "LinkDownedCounter must be a whole number"),
    ],
)
def test_errors_name_the_line(evidence, name, line, words):
    with pytest.raises(PerfqueryError) as exc:
        perfquery.parse(evidence(D + name))
    assert exc.value.line == line and words in str(exc.value)


def test_text_without_a_block_is_refused():
    with pytest.raises(PerfqueryError, match="no '# Port counters"):
        perfquery.parse("hello\n")


(
    test_fuzz_arbitrary_text,
    test_fuzz_truncated_valid_file,
    test_fuzz_random_bytes,
    test_fuzz_spliced_bytes,
    test_fuzz_bad_number_in_a_valid_file,
) = fuzz_tests("perfquery", perfquery.parse, PerfqueryError)
