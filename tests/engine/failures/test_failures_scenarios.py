"""The issue's scenario list, one row each: the initiating rank AND the suggested owner."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.failures import analyse
from engine.failures.model import SourceFile
from engine.failures.synthetic import Scenario, cascade, flight_recorder

Bundle = Callable[[], list[SourceFile]]

SCENARIOS: dict[str, tuple[Bundle, int, str]] = {
    # A rank that skipped a collective: it never enqueued the one the others wait in.
    "skipped collective": (lambda: flight_recorder(ranks=16, culprit=9), 9, "customer"),
    # Xid 79 on one node, the 15 other ranks time out.
    "xid 79, 15 timeouts": (lambda: cascade(Scenario(ranks=16, culprit=11)), 11, "provider"),
    "ib transport error": (
        lambda: cascade(Scenario(ranks=64, culprit=21, failure="ib")),
        21,
        "provider",
    ),
    "oom on one rank": (
        lambda: cascade(Scenario(ranks=64, culprit=21, failure="oom")),
        21,
        "undetermined",
    ),
    "flight recorder size mismatch": (
        lambda: flight_recorder(ranks=16, culprit=9, mismatch_at=150),
        9,
        "customer",
    ),
    "a rank with no dump": (lambda: flight_recorder(ranks=16, missing=(5,)), 5, "undetermined"),
    # node-2 runs 45 s fast: its exception reads later than node-5's IB error, yet came first.
    "skewed clocks": (
        lambda: cascade(
            Scenario(ranks=64, culprit=21, failure="exception", skew_s={"node-2": 45.0}, rival=44)
        ),
        21,
        "customer",
    ),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_each_scenario_names_its_initiating_rank_and_owner(name: str) -> None:
    bundle, rank, owner = SCENARIOS[name]
    a = analyse(bundle(), year=2024)
    assert (a.initiating_rank, a.suggested_owner) == (rank, owner)
    assert a.owner_reasons, "a suggestion always carries its evidence"


def test_the_xid_cascade_groups_the_15_timeouts_under_the_initiating_rank() -> None:
    a = analyse(cascade(Scenario(ranks=16, culprit=11)), year=2024)
    assert a.first_failure is not None and a.first_failure.detail["xid"] == 79
    assert sorted(a.secondary_ranks) == [r for r in range(16) if r != 11]
    assert "1 initiating, 15 secondary" in a.summary()


def test_a_skipped_collective_from_dumps_alone_asks_for_the_ranks_kernel_log() -> None:
    """Flight Recorder shows rank 9 behind; without its node's kernel log a hung GPU there is
    not ruled out, and the analysis says which log would settle it."""
    a = analyse(flight_recorder(ranks=16, culprit=9), year=2024)
    assert a.first_failure is not None and a.first_failure.kind == "collective_desync"
    assert "no kernel log (Xid/ECC) for rank 9's node: a GPU hang is not ruled out" in a.missing
