"""Detection across kinds, bytes input, binary files, JSON export."""

import contextlib
import gzip
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from parser_fuzzing import DATA, FUZZ

from engine import packed
from engine.evidence.parsers import (
    KINDS,
    BinaryEvidence,
    ParseError,
    UnrecognisedEvidence,
    detect_kind,
    parse_evidence,
    to_json,
)

VALID = sorted(
    p
    for p in DATA.rglob("*")
    if p.is_file() and not p.name.startswith("broken") and "not_gpus" not in p.name
)


def test_kinds():
    assert set(KINDS) == {
        "nccl-tests",
        "nvidia-smi-topo",
        "nvidia-smi-query",
        "dcgmi-diag",
        "ibstat",
        "step-times",
        "fixture-result",
        "perfquery",
        "ibqueryerrors",
        "nvbandwidth",
        "perftest",
        "nvidia-smi-dmon",
    }


@pytest.mark.parametrize("path", VALID, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_valid_file_is_detected_as_its_kind_and_exports_json(path: Path):
    data = path.read_bytes()
    assert detect_kind(data) == path.parent.name
    out = to_json(parse_evidence(data))
    assert out["kind"] == path.parent.name
    json.dumps(out, allow_nan=False)


def test_foreign_text_is_unrecognised_with_a_clear_message():
    with pytest.raises(UnrecognisedEvidence, match=r"unrecognised evidence.*first line reads"):
        detect_kind(b"NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n")


def test_binary_is_a_specific_error():
    with pytest.raises(BinaryEvidence, match="NUL byte"):
        parse_evidence(b"\x7fELF\x02\x01\x01\x00\x00")
    with pytest.raises(BinaryEvidence, match="not text"):
        parse_evidence(bytes(range(128, 256)) * 4)


def test_a_gzipped_upload_is_read_as_the_text_inside(monkeypatch: pytest.MonkeyPatch):
    for path in VALID[::7]:
        data = path.read_bytes()
        assert to_json(parse_evidence(gzip.compress(data))) == to_json(parse_evidence(data))
    cut = gzip.compress(VALID[0].read_bytes())[:60]
    with pytest.raises(BinaryEvidence, match="gzip file that cannot be unpacked"):
        parse_evidence(cut)
    monkeypatch.setattr(packed, "MAX_UNPACKED", 1000)
    with pytest.raises(BinaryEvidence, match="unpacks to more than"):
        parse_evidence(gzip.compress(b"# nThread 1\n" * 200))


def test_invalid_utf8_is_replaced_not_fatal():
    data = (DATA / "ibstat" / "ibstatus_4x400g.txt").read_bytes() + b"\xff\xfe\n"
    assert detect_kind(data) == "ibstat"


def test_explicit_kind_skips_detection_and_reports_its_errors():
    with pytest.raises(ParseError) as exc:
        parse_evidence((DATA / "ibstat" / "ibstatus_4x400g.txt").read_bytes(), "step-times")
    assert exc.value.kind == "step-times"


@FUZZ
@given(st.binary(max_size=3000))
def test_fuzz_registry_never_crashes(data):
    with contextlib.suppress(ParseError):
        parse_evidence(data)
