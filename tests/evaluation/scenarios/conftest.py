"""The worked example's request, for every scenario test here (tests/browser imports it too)."""

from tests.evaluation.scenarios.world import cirrus, worked  # noqa: F401
