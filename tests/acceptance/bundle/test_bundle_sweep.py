"""nccl-tests sweep: new fixtures follow seed 001 (`-b 8M -e 8G -f 2`); issued ones keep theirs."""

from __future__ import annotations

import copy
import io
import tarfile
from typing import Any

from acceptance.bundle import build_bundle
from tests.acceptance.bundle.conftest import three_node_spec


def _env(spec: dict[str, Any]) -> str:
    data, _ = build_bundle(spec)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        (member,) = [m for m in tar.getmembers() if m.name.endswith("/fixture.env")]
        handle = tar.extractfile(member)
        assert handle is not None
        return handle.read().decode()


def test_a_new_fixture_sweeps_from_8_mib_to_8_gib_doubling() -> None:
    sweep = three_node_spec()["tests"]["nccl_tests"]
    assert (sweep["min_bytes"], sweep["max_bytes"], sweep["step_factor"]) == (8 << 20, 8 << 30, 2)
    env = _env(three_node_spec())
    assert "MIN_BYTES=8388608" in env and "MAX_BYTES=8589934592" in env


def test_an_issued_fixture_keeps_the_sweep_it_was_issued_with() -> None:
    """GIVEN a spec stored before the default changed (from 8 bytes), its bundle is built from
    that spec: the sweep it promised, and the same bytes every time it is downloaded."""
    issued = copy.deepcopy(three_node_spec())
    issued["tests"]["nccl_tests"]["min_bytes"] = 8
    assert "MIN_BYTES=8\n" in _env(issued)
    assert build_bundle(issued)[0] == build_bundle(copy.deepcopy(issued))[0]
