"""`manage.py analyse_failure`: verdict on stdout and exit 0; unusable input exits 2."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest
from django.core.management import call_command

from engine.failures.synthetic import Scenario, cascade, flight_recorder


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    path = tmp_path / "run.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for f in cascade(Scenario(ranks=32, culprit=13)):
            info = tarfile.TarInfo(f.name)
            info.size = len(f.data)
            tar.addfile(info, io.BytesIO(f.data))
    return path


def test_json_verdict_for_an_archive(bundle: Path, capsys: pytest.CaptureFixture[str]) -> None:
    call_command("analyse_failure", str(bundle), "--json", "--year", "2024")
    doc = json.loads(capsys.readouterr().out)
    assert doc["first_failure"]["rank"] == 13 and doc["first_failure"]["node"] == "node-1"
    assert len(doc["secondary_ranks"]) == 31


def test_text_verdict_for_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for f in cascade(Scenario(ranks=16, culprit=5, failure="exception")):
        (tmp_path / f.name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f.name).write_bytes(f.data)
    call_command("analyse_failure", str(tmp_path), "--world-size", "16")
    out = capsys.readouterr().out
    assert out.startswith("Initiating: rank 5 on node-0: python_exception")
    assert "Secondary ranks: 15" in out and "Evidence chain:" in out


@pytest.mark.parametrize(
    ("content", "reason"),
    [(b"\x1f\x8b\x08garbage", "corrupt"), (None, "no such file")],
)
def test_unusable_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None, reason: str
) -> None:
    path = tmp_path / "bad.tar.gz"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(SystemExit) as exc:
        call_command("analyse_failure", str(path))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert reason in err and err.count("\n") == 1


def test_bad_rank_map_exits_2(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "map.csv"
    bad.write_text("rank,node\nx,y\n")
    with pytest.raises(SystemExit) as exc:
        call_command("analyse_failure", str(bundle), "--rank-map", str(bad))
    assert exc.value.code == 2 and "map.csv" in capsys.readouterr().err


def test_flight_recorder_mismatch_and_a_rank_without_any_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for f in flight_recorder(ranks=16, entries=20, culprit=5, mismatch_at=12, missing=(9,)):
        (tmp_path / f.name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f.name).write_bytes(f.data)
    call_command("analyze_failure", str(tmp_path), "--json")
    doc = json.loads(capsys.readouterr().out)
    assert doc["first_failure"]["rank"] == 5 and doc["suggested_owner"] == "customer"
    (mismatch,) = doc["mismatches"]
    assert {"seq", "ranks", "field", "values"} <= set(mismatch)
    assert (mismatch["seq"], mismatch["ranks"], mismatch["field"]) == (12, [5], "input_sizes")
    # Rank 9 has neither a dump nor a log: missing from the dumps and without any record.
    assert doc["missing_dumps"] == [9] and doc["missing_ranks"] == [9]


def test_an_archive_of_only_unsafe_members_exits_2_naming_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "evil.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("../../etc/cron.d/evil")
        info.size = 5
        tar.addfile(info, io.BytesIO(b"hello"))
        link = tarfile.TarInfo("passwd")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
    with pytest.raises(SystemExit) as exc:
        call_command("analyze_failure", str(path), "--json")
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "path traversal" in err and "passwd (link" in err and err.count("\n") == 1
