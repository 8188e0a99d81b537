"""`python manage.py analyze_failure PATH --json` as a user runs it: a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.failures.synthetic import Scenario, cascade
from tests.incidents.helpers import tar_bytes

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "analyze_failure", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("shape", ["archive", "folder"])
def test_it_prints_one_json_object(tmp_path: Path, shape: str) -> None:
    files = cascade(Scenario(ranks=64, culprit=37))
    if shape == "archive":
        path = tmp_path / "run.tar.gz"
        path.write_bytes(tar_bytes(files))
    else:
        path = tmp_path / "run"
        for f in files:
            (path / f.name).parent.mkdir(parents=True, exist_ok=True)
            (path / f.name).write_bytes(f.data)
    done = _run(str(path), "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["first_failure"]["rank"] == 37 and doc["first_failure"]["node"] == "node-4"
    assert {"time", "kind", "message", "source", "line"} <= set(doc["first_failure"])
    for key in ("secondary_ranks", "missing_ranks", "mismatches", "suggested_owner", "reasons",
                "timeline"):  # fmt: skip
        assert key in doc


def test_an_unreadable_bundle_exits_2_with_the_reason(tmp_path: Path) -> None:
    bad = tmp_path / "broken.zip"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    done = _run(str(bad), "--json")
    assert done.returncode == 2 and done.stdout == ""
    assert "broken.zip" in done.stderr and done.stderr.count("\n") == 1


def test_the_british_spelling_is_the_same_command() -> None:
    from incidents.management.commands import analyse_failure, analyze_failure

    assert analyse_failure.Command is analyze_failure.Command


def test_first_ever_heads_a_restarted_jobs_report_with_attempt_0() -> None:
    restart = ROOT / "tests" / "data" / "failures" / "realruns" / "restart"
    ending = json.loads(_run(str(restart), "--json").stdout)
    assert (ending["initiating_rank"], ending["attempt"], ending["first"]) == (6, 1, "ending")
    ever = _run(str(restart), "--json", "--first-ever")
    assert ever.returncode == 0, ever.stderr
    doc = json.loads(ever.stdout)
    assert (doc["initiating_rank"], doc["attempt"], doc["first"]) == (2, 0, "ever")
    assert [(a["attempt"], a["initiating_rank"]) for a in doc["attempts"]] == [(1, 6)]
    text = _run(str(restart), "--first-ever").stdout
    assert "attempt 0 of 2" in text and "Later attempts:" in text
