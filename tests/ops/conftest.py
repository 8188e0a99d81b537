"""The awarded request the annex tests use: a render to time."""

from tests.annexes.conftest import awarded  # noqa: F401
