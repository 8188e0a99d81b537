"""ibstat (tabs or spaces, ibpanic tail) and ibstatus."""

import pytest
from parser_fuzzing import fuzz_tests

from engine.evidence.parsers import detect_kind, ibstat
from engine.evidence.parsers.base import IbstatError

D = "ibstat/"


def test_all_active_with_an_ethernet_bond(evidence):
    r = ibstat.parse(evidence(D + "ibstat_8x400g_ndr_plus_bond_tabs.txt"))
    ib = [p for p in r.ports if p.link_layer == "InfiniBand"]
    assert len(ib) == 8 and {(p.state, p.physical_state, p.rate) for p in ib} == {
        ("Active", "LinkUp", 400)
    }
    assert r.cas[0].type == "MT4129" and r.cas[0].firmware == "28.42.1000"
    assert r.ports[-1].ca == "mlx5_bond_0" and r.ports[-1].link_layer == "Ethernet"


def test_down_port_and_slow_port_with_space_indent(evidence):
    r = ibstat.parse(evidence(D + "ibstat_one_port_down_one_at_200g_spaces.txt"))
    down = next(p for p in r.ports if p.ca == "mlx5_5")
    assert (down.state, down.physical_state, down.rate) == ("Down", "Polling", 40)
    assert next(p for p in r.ports if p.ca == "mlx5_7").rate == 200


def test_ibpanic_is_kept_as_an_error(evidence):
    r = ibstat.parse(evidence(D + "ibstat_ibpanic_after_7_cas.txt"))
    assert len(r.cas) == 7 and r.errors[0].startswith("ibpanic:")


def test_ibstatus(evidence):
    r = ibstat.parse(evidence(D + "ibstatus_4x400g.txt"))
    assert r.source_format == "ibstatus" and len(r.ports) == 4
    assert (r.ports[0].state, r.ports[0].physical_state, r.ports[0].rate) == (
        "Active",
        "LinkUp",
        400,
    )


def test_fields_before_any_ca_are_an_error(evidence):
    with pytest.raises(IbstatError) as exc:
        ibstat.parse(evidence(D + "broken_no_ca_header.txt"))
    assert exc.value.line == 1


@pytest.mark.parametrize("rate", ["fast", "", "nan", "inf", "-400"])
def test_an_unreadable_rate_names_its_line(evidence, rate):
    text = evidence(D + "ibstat_8x400g_ndr_plus_bond_tabs.txt").decode()
    lines = text.split("\n")
    at = next(i for i, ln in enumerate(lines) if ln.strip().startswith("Rate:"))
    lines[at] = lines[at].replace("400", rate)
    with pytest.raises(IbstatError) as exc:
        ibstat.parse("\n".join(lines))
    assert exc.value.line == at + 1 and "rate" in str(exc.value)


def test_an_unreadable_ibstatus_rate_names_its_line(evidence):
    text = evidence(D + "ibstatus_4x400g.txt").decode()
    lines = text.split("\n")
    at = next(i for i, ln in enumerate(lines) if ln.strip().startswith("rate:"))
    lines[at] = "\trate:\t\t fast"
    with pytest.raises(IbstatError) as exc:
        ibstat.parse("\n".join(lines))
    assert exc.value.line == at + 1


(
    test_fuzz_arbitrary_text,
    test_fuzz_truncated_valid_file,
    test_fuzz_random_bytes,
    test_fuzz_spliced_bytes,
    test_fuzz_bad_number_in_a_valid_file,
) = fuzz_tests("ibstat", ibstat.parse, IbstatError)


def test_the_one_port_form_of_ibstat_ca_port(evidence):
    """`ibstat mlx5_4 1` prints "CA: 'mlx5_4'" and one unindented port."""
    raw = evidence(D + "ibstat_one_port_form_ca_colon_mlx5_4.txt")
    assert detect_kind(raw) == "ibstat"
    r = ibstat.parse(raw)
    assert [(p.ca, p.port, p.state, p.rate, p.link_layer) for p in r.ports] == [
        ("mlx5_4", 1, "Active", 400, "InfiniBand")
    ]


def test_libibumad_debug_traces_are_not_errors_but_its_warnings_are(evidence):
    # `ibstat -d` turns on libibumad's TRACE/DEBUG lines, which go out as "ibwarn:".
    text = evidence(D + "ibstat_debug_d_umad_traces_mlx4_fdr.txt")
    r = ibstat.parse(text)
    assert r.errors == ()
    assert [(p.port, p.state, p.rate) for p in r.ports] == [(1, "Down", 10), (2, "Active", 56)]
    warned = ibstat.parse(
        text + b"ibwarn: [168988] get_port: no pkeys found for mlx4_0:2 (at dir x)...\n"
    )
    assert warned.errors == (
        "ibwarn: [168988] get_port: no pkeys found for mlx4_0:2 (at dir x)...",
    )
