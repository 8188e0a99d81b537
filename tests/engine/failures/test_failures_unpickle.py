"""Flight Recorder dumps: the restricted unpickler runs nothing, JSON dumps read the same."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest

from engine.failures import DumpError, UnsafePickle, load_dump, restricted_loads
from engine.failures.unpickle import rank_from_name


class _Boom:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_it_refuses_a_pickle_calling_os_system_and_runs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "pwned"
    payload = pickle.dumps({"entries": [_Boom(str(marker))]}, protocol=2)
    assert b"system" in payload
    calls: list[object] = []
    monkeypatch.setattr(os, "system", lambda *a: calls.append(a))
    with pytest.raises(UnsafePickle, match=r"(posix|os|nt)\.system"):
        restricted_loads(payload)
    with pytest.raises(UnsafePickle):
        load_dump(payload, name="nccl_trace_rank_3")
    assert not marker.exists() and calls == []


@pytest.mark.parametrize(
    "payload",
    [
        b"cbuiltins\neval\n(S'1+1'\ntR.",  # protocol 0 GLOBAL + REDUCE
        pickle.dumps(exec, protocol=4),
        pickle.dumps(pickle.loads(pickle.dumps(bytearray(b"x"), protocol=2)), protocol=2),
    ],
)
def test_it_refuses_any_other_global(payload: bytes) -> None:
    with pytest.raises(UnsafePickle):
        restricted_loads(payload)


def test_plain_data_and_protocol_2_sets_load() -> None:
    value = {"a": [1, 2.5, None, True], "b": (b"x", "y"), "c": {1, 2}, "d": frozenset({3})}
    for protocol in (2, 4, 5):
        assert restricted_loads(pickle.dumps(value, protocol=protocol)) == value


@pytest.mark.parametrize("payload", [b"\x80\x04garbage", b"\x80", b"\x80\x04\x95\xff\xff"])
def test_corrupt_pickles_raise_dump_error(payload: bytes) -> None:
    with pytest.raises(DumpError):
        restricted_loads(payload)


def test_json_dumps_and_shape_errors() -> None:
    assert load_dump(json.dumps({"entries": []}).encode(), name="rank3.json") == {"entries": []}
    # Other versions' odd entries are dropped and counted, not a reason to refuse the dump.
    odd = load_dump(json.dumps({"entries": [1, {"a": 2}]}).encode(), name="rank3.json")
    assert odd == {"entries": [{"a": 2}], "unreadable_entries": 1}
    with pytest.raises(DumpError, match="mapping"):
        load_dump(pickle.dumps([1, 2]), name="x_1")
    with pytest.raises(DumpError):
        load_dump(b"{not json", name="rank3.json")


@pytest.mark.parametrize(
    ("name", "rank"),
    [
        ("nccl_trace_rank_12", 12),
        ("fr/rank3.json", 3),
        ("trace_0", 0),
        ("dump-7.pkl", 7),
        ("a.pkl", None),
    ],
)
def test_rank_from_dump_names(name: str, rank: int | None) -> None:
    assert rank_from_name(name) == rank


def test_log_names_need_the_word_rank() -> None:
    assert rank_from_name("node-17.log", require_rank_word=True) is None
    assert rank_from_name("logs/rank_137.log", require_rank_word=True) == 137
