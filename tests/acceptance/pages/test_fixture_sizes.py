"""A size in the fixture editor shows as text that saves back to the same number of bytes."""

from __future__ import annotations

import pytest

from acceptance.forms.fixtures import ByteSizeField


@pytest.mark.parametrize("size", [8, 1000, 3 << 19, 1_100_000_000, 8 << 30])
def test_a_shown_size_saves_back_unchanged(size: int) -> None:
    field = ByteSizeField()
    assert field.to_python(field.prepare_value(size)) == size
