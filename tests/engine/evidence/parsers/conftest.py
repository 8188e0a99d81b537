from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[3] / "data" / "evidence"


@pytest.fixture
def evidence():
    """Read a test evidence file: evidence("nccl-tests/x.txt") -> bytes."""

    def read(name: str) -> bytes:
        return (DATA / name).read_bytes()

    return read
