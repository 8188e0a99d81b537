"""Shared set-up for the bundle tests: a built bundle on disk and the skip-or-fail rule."""

from __future__ import annotations

import io
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from acceptance.bundle import build_bundle
from engine.evidence.fixtures import default_spec


def missing_prerequisite(reason: str) -> None:
    """Skip on a laptop; in CI (env CI set) a missing prerequisite fails the suite."""
    from tests.conftest import require_service

    require_service(False, reason)


@pytest.fixture
def require() -> Callable[[str], None]:
    return missing_prerequisite


def three_node_spec() -> dict[str, Any]:
    return default_spec(
        gpu_model="H200",
        nodes=3,
        gpus_per_node=8,
        fabric="ndr400-ib",
        template="bisection-pairs",
        max_leaf_switches=1,
    )


@pytest.fixture
def spec() -> dict[str, Any]:
    return three_node_spec()


@pytest.fixture
def unpacked(tmp_path: Path, spec: dict[str, Any]) -> Path:
    """The bundle for `spec`, extracted; returns its root folder."""
    data, _ = build_bundle(spec)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(tmp_path, filter="data")
    (root,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    return root
