"""nvidia-smi topo -m: tab- and space-separated matrices, NIC rows, affinity columns."""

import pytest
from parser_fuzzing import fuzz_tests

from engine.evidence.parsers import nvidia_smi_topo, to_json
from engine.evidence.parsers.base import TopoError

D = "nvidia-smi-topo/"


def test_it_reads_an_hgx_matrix_with_nics_tabs_and_ansi(evidence):
    r = nvidia_smi_topo.parse(evidence(D + "hgx_h200_8gpu_8nic_tabs_ansi_header.txt"))
    assert len(r.gpus) == 8 and len(r.nics) == 8
    assert r.matrix["GPU0"]["GPU1"] == "NV18" and r.matrix["GPU0"]["NIC0"] == "PIX"
    assert r.matrix["NIC3"]["GPU3"] == "PIX"
    assert r.affinity["GPU5"].cpu_affinity == "56-111,168-223"
    assert r.affinity["GPU5"].numa_affinity == "1" and r.affinity["GPU5"].gpu_numa_id is None
    assert r.nic_names["NIC2"] == "mlx5_4"


def test_it_reads_space_aligned_output(evidence):
    r = nvidia_smi_topo.parse(evidence(D + "hgx_8gpu_one_pair_nv12_one_gpu_far_nic.txt"))
    assert r.matrix["GPU2"]["GPU5"] == "NV12" and r.matrix["GPU6"]["NIC6"] == "NODE"


def test_pcie_only_without_nics(evidence):
    r = nvidia_smi_topo.parse(evidence(D + "pcie_4gpu_no_nics_spaces.txt"))
    assert r.nics == () and r.matrix["GPU0"]["GPU2"] == "SYS"
    assert to_json(r)["matrix"]["GPU1"]["GPU0"] == "PIX"


def test_a_short_row_is_a_line_error(evidence):
    with pytest.raises(TopoError) as exc:
        nvidia_smi_topo.parse(evidence(D + "broken_short_row.txt"))
    assert exc.value.line == 3


def test_a_matrix_cut_off_before_the_last_gpus_is_refused_not_half_checked(evidence):
    text = evidence(D + "hgx_h200_8gpu_8nic_tabs_ansi_header.txt").decode()
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if "GPU0" in line and "GPU1" in line)
    truncated = "\n".join(lines[: header + 5])  # header and GPU0..GPU3 only
    with pytest.raises(TopoError, match="no row for GPU4, GPU5, GPU6, GPU7") as exc:
        nvidia_smi_topo.parse(truncated)
    assert exc.value.line == header + 6


(
    test_fuzz_arbitrary_text,
    test_fuzz_truncated_valid_file,
    test_fuzz_random_bytes,
    test_fuzz_spliced_bytes,
    test_fuzz_bad_number_in_a_valid_file,
) = fuzz_tests("nvidia-smi-topo", nvidia_smi_topo.parse, TopoError)
