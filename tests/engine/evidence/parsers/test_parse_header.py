"""The collector's header line: read where present, harmless where absent."""

import json

import pytest
from parser_fuzzing import DATA

from engine.evidence.parsers import ParseError, detect_kind, parse_evidence, to_json
from engine.evidence.parsers.header import host_matches, read_header, split_header

HEADER = (
    b"# clusterbid-evidence node=gpu-a02 host=gpu-a02.hel2.example collected=2026-12-03T20:15:00Z\n"
)


@pytest.mark.parametrize(
    "name",
    [
        "nvidia-smi-topo/hgx_h200_8gpu_8nic_tabs_ansi_header.txt",
        "nvidia-smi-query/query_gpu_csv_units_8xh200_one_ecc.txt",
        "nvidia-smi-query/nvidia_smi_q_2xh200_sram_secded.txt",
        "dcgmi-diag/diag_r3_dcgm3_all_pass.txt",
        "ibstat/ibstat_8x400g_ndr_plus_bond_tabs.txt",
        "nccl-tests/all_reduce_2node_v2.17_full.txt",
        "step-times/steps_16ranks_even.csv",
    ],
)
def test_a_collected_file_parses_as_the_raw_one_and_names_its_origin(name: str) -> None:
    raw = (DATA / name).read_bytes()
    collected = parse_evidence(HEADER + raw)
    assert detect_kind(HEADER + raw) == detect_kind(raw)
    assert collected.origin is not None
    assert collected.origin.node == "gpu-a02"
    assert collected.origin.host == "gpu-a02.hel2.example"
    assert collected.origin.collected == "2026-12-03T20:15:00Z"
    exported = to_json(collected)
    assert exported.pop("origin")["host"] == "gpu-a02.hel2.example"
    # Same content; only line numbers move down by the header's one line.
    assert json.dumps(exported).count("line") == json.dumps(to_json(parse_evidence(raw))).count(
        "line"
    )


def test_raw_tool_output_without_the_header_still_parses() -> None:
    parsed = parse_evidence((DATA / "dcgmi-diag/diag_r3_dcgm3_all_pass.txt").read_bytes())
    assert parsed.origin is None
    assert "origin" not in to_json(parsed)


def test_errors_name_the_line_of_the_uploaded_file_header_included() -> None:
    raw = (DATA / "nvidia-smi-query/broken_csv_wrong_field_count.txt").read_bytes()
    with pytest.raises(ParseError) as plain:
        parse_evidence(raw)
    with pytest.raises(ParseError) as collected:
        parse_evidence(HEADER + raw)
    assert plain.value.line is not None
    assert collected.value.line == plain.value.line + 1


def test_header_reading() -> None:
    origin = read_header(
        "# clusterbid-evidence node=n1 host=n1.example collected=2026-01-01T00:00:00Z"
    )
    assert origin is not None and origin.host_short == "n1"
    assert read_header("# nThread 1 nGpus 1") is None
    assert read_header("# clusterbid-evidencex node=n1") is None
    assert split_header("GPU0 X\n")[0] is None
    origin, body = split_header("# clusterbid-evidence host=h\nrest\n")
    assert origin is not None and origin.node is None and body == "\nrest\n"
    assert host_matches("gpu-a01.hel2.example", "gpu-a01")
    assert host_matches("GPU-A01", "gpu-a01")
    assert not host_matches("gpu-a02", "gpu-a01")
