"""The management commands, run as a user would (subprocess, real exit codes)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from check_builders import DATA, SPEC, fixture_lines, nccl_text, step_csv

ROOT = Path(__file__).resolve().parents[4]


def manage(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def evidence_dir(tmp_path):
    (tmp_path / "spec.json").write_text(json.dumps(SPEC))
    (tmp_path / "all").mkdir()
    (tmp_path / "all" / "fixture.jsonl").write_text(fixture_lines())
    (tmp_path / "all" / "all_reduce.txt").write_text(nccl_text())
    (tmp_path / "all" / "steps.csv").write_text(step_csv())
    for node in ("gpu-a01", "gpu-a02"):
        (tmp_path / node).mkdir()
        for name in (
            "nvidia-smi-topo/hgx_h200_8gpu_8nic_tabs_ansi_header.txt",
            "nvidia-smi-query/table_wide_8xh200_drv560.txt",
            "dcgmi-diag/diag_r3_dcgm3_all_pass.txt",
            "ibstat/ibstat_8x400g_ndr_plus_bond_tabs.txt",
        ):
            (tmp_path / node / Path(name).name).write_bytes((DATA / name).read_bytes())
    return tmp_path


def test_parse_evidence_prints_json():
    proc = manage("parse_evidence", str(DATA / "ibstat" / "ibstatus_4x400g.txt"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["kind"] == "ibstat"


def test_parse_evidence_malformed_exits_2_with_the_line():
    proc = manage("parse_evidence", str(DATA / "nccl-tests" / "broken_short_row_mid_table.txt"))
    assert proc.returncode == 2 and "line 20:" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_parse_evidence_nan_in_wrong_exits_2_with_the_line(tmp_path):
    path = tmp_path / "all_reduce.txt"
    lines = nccl_text().split("\n")
    at = next(i for i, ln in enumerate(lines) if ln.strip().startswith("1073741824"))
    lines[at] = lines[at].replace("      0", "    nan", 1)
    path.write_text("\n".join(lines))
    proc = manage("parse_evidence", str(path))
    assert proc.returncode == 2 and f"line {at + 1}:" in proc.stderr and "#wrong" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_parse_evidence_unrecognised_exits_2(tmp_path):
    path = tmp_path / "x.bin"
    path.write_bytes(b"\x00\x01binary")
    proc = manage("parse_evidence", str(path))
    assert proc.returncode == 2 and "binary file" in proc.stderr


def test_check_evidence_passes_with_nodes_from_directories(evidence_dir):
    files = [str(p) for p in sorted(evidence_dir.glob("*/*"))]
    proc = manage("check_evidence", "--fixture", str(evidence_dir / "spec.json"), *files)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "gate passed" in proc.stdout


def test_check_evidence_json_and_failure_exit(evidence_dir):
    files = [str(p) for p in sorted(evidence_dir.glob("*/*")) if "ibstat" not in p.name]
    proc = manage("check_evidence", "--json", "--fixture", str(evidence_dir / "spec.json"), *files)
    assert proc.returncode == 1
    out = json.loads(proc.stdout)
    assert not out["passed"] and any(c["status"] == "missing" for c in out["checks"])


def test_check_evidence_node_prefix_and_unusable_input(evidence_dir):
    spec = str(evidence_dir / "spec.json")
    pair = evidence_dir / "pair.txt"
    pair.write_text(nccl_text(hosts=("gpu-a01", "gpu-a02")))
    proc = manage("check_evidence", "--json", "--fixture", spec, f"gpu-a01+gpu-a02:{pair}")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["checks"]
    proc = manage("check_evidence", "--fixture", spec, str(evidence_dir / "nope.txt"))
    assert proc.returncode == 2 and "cannot read" in proc.stderr


def test_a_directory_named_after_a_tool_is_not_a_node(tmp_path):
    """GIVEN captures sorted by tool (dcgmi/, nvidia-smi/) THEN they cover the whole allocation;
    any other directory names the node."""
    from engine.evidence.checks.cli import split_node

    assert split_node(str(tmp_path / "dcgmi" / "diag.txt"))[0] is None
    assert split_node(str(tmp_path / "nvidia-smi" / "q.csv"))[0] is None
    assert split_node(str(tmp_path / "gpu-a01" / "diag.txt"))[0] == "gpu-a01"
