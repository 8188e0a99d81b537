"""torchrun's elastic restarts: the failure that ended the job heads the analysis, each earlier
attempt's first failure is listed beneath it, and "first ever" turns that around.

`realruns/restart` is a real torchrun job (`--max-restarts 1`, CPU torch, gloo; see
realruns/generate.py): attempt 0 dies at rank 2 (ValueError at step 4), the restart gets past
that step, and rank 6 ends the job (FloatingPointError at step 6).
"""

from __future__ import annotations

import json
from datetime import UTC

from failures_helpers import DATA

from engine.failures import SourceFile, analyse, first_ever, read_analysis, read_paths, view

RESTART = DATA / "realruns" / "restart"


def test_the_failure_that_ended_the_job_heads_and_attempt_0_is_listed_beneath() -> None:
    a = analyse(read_paths([RESTART]))
    assert (a.initiating_rank, a.initiating_node, a.attempt, a.restarts) == (6, "node-0", 1, 1)
    assert a.first_failure is not None and "FloatingPointError" in a.first_failure.text
    assert a.suggested_owner == "customer"
    [earlier] = a.attempts
    assert (earlier.attempt, earlier.initiating_rank, earlier.initiating_node) == (0, 2, "node-0")
    assert earlier.first_failure is not None and "ValueError" in earlier.first_failure.text
    doc = a.to_json()
    assert doc["attempt"] == 1 and doc["first"] == "ending"
    assert [(x["attempt"], x["initiating_rank"]) for x in doc["attempts"]] == [(0, 2)]
    assert "attempt 1 of 2" in doc["summary"] and "attempt 0 of 2" in doc["attempts"][0]["summary"]
    assert not any("timed out or lost its peer" in r for r in a.reasons)
    json.dumps(doc, allow_nan=False)


def test_the_lines_say_which_host_the_ranks_ran_on() -> None:
    text = (RESTART / "node-0.log").read_text()
    assert "step 6 rank 6 host=node-0" in text and "restart_count=1" in text


def test_first_ever_puts_attempt_0_at_the_head_in_the_library_and_from_the_stored_json() -> None:
    ever = analyse(read_paths([RESTART]), first_ever=True)
    assert (ever.initiating_rank, ever.attempt, ever.first) == (2, 0, "ever")
    assert [(x.attempt, x.initiating_rank) for x in ever.attempts] == [(1, 6)]
    stored = analyse(read_paths([RESTART])).to_json()
    turned = first_ever(stored)
    assert (turned["initiating_rank"], turned["attempt"], turned["first"]) == (2, 0, "ever")
    assert [(x["attempt"], x["initiating_rank"]) for x in turned["attempts"]] == [(1, 6)]
    assert turned["summary"] == ever.to_json()["summary"]
    assert view(stored, first="ending")["initiating_rank"] == 6


def test_first_ever_without_restarts_changes_nothing_but_the_label() -> None:
    doc = analyse(read_paths([DATA / "realruns" / "raise"])).to_json()
    assert doc["attempt"] is None and doc["attempts"] == []
    turned = first_ever(doc)
    assert turned["initiating_rank"] == doc["initiating_rank"] == 2 and turned["first"] == "ever"


def _agent(ts: str, message: str) -> str:
    return f"I1206 {ts}.000000 100 torch/distributed/elastic/agent/server/api.py:553] {message}"


_RESTART_LINE = "[default] Worker group FAILED. 1/1 attempts left; will restart worker group"


def _two_attempts(*, lost_peer_in_attempt_0: bool) -> SourceFile:
    """One agent's log: attempt 0 fails at rank 2 (rank 6 loses its peer), attempt 1 at rank
    6, whose exception ends the job."""
    lost = (
        [
            "[default6]:[rank6]: Traceback (most recent call last):",
            '[default6]:[rank6]:   File "train.py", line 9, in <module>',
            "[default6]:[rank6]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534]"
            " Connection closed by peer [127.0.0.1]:41234",
        ]
        if lost_peer_in_attempt_0
        else []
    )
    lines = [
        _agent("07:00:00", "[default] Rendezvous complete for workers. Result:"),
        _agent("07:00:00", "  restart_count=0"),
        "[default2]:[rank2]: Traceback (most recent call last):",
        '[default2]:[rank2]:   File "train.py", line 9, in <module>',
        "[default2]:[rank2]: ValueError: batch 4 has no 'input_ids'",
        *lost,
        _agent("07:00:10", _RESTART_LINE),
        _agent("07:00:11", "[default] Rendezvous complete for workers. Result:"),
        _agent("07:00:11", "  restart_count=1"),
        "[default6]:[rank6]: Traceback (most recent call last):",
        '[default6]:[rank6]:   File "train.py", line 12, in <module>',
        "[default6]:[rank6]: FloatingPointError: loss is nan at step 6",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2026-12-06_07:00:30",
        "  host      : node-a",
        "  rank      : 6 (local_rank: 6)",
        "  exitcode  : 1 (pid: 4242)",
        "  error_file: <N/A>",
    ]
    return SourceFile("node-a.log", ("\n".join(lines) + "\n").encode())


def test_a_rank_that_lost_its_peer_in_one_attempt_is_not_explained_away_in_the_next() -> None:
    for lost in (False, True):
        a = analyse([_two_attempts(lost_peer_in_attempt_0=lost)])
        assert (a.initiating_rank, a.attempt) == (6, 1), a.reasons
        assert [(x.attempt, x.initiating_rank) for x in a.attempts] == [(0, 2)]
        assert not any("timed out or lost its peer" in r for r in a.reasons)
        assert any("'first observed failure' is rank 6" in r and "taken" in r for r in a.reasons)


def test_an_exception_whose_own_traceback_comes_first_is_never_a_consequence() -> None:
    # One attempt: rank 3 raises, then its gloo pair closes as the group is torn down.
    text = "\n".join([
        "[rank3]: Traceback (most recent call last):",
        '[rank3]:   File "train.py", line 9, in <module>',
        "[rank3]: KeyError: 'labels'",
        "[rank3]: RuntimeError: [gloo/transport/tcp/pair.cc:534] Connection closed by peer",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2026-12-06_07:00:30",
        "  host      : node-a",
        "  rank      : 3 (local_rank: 3)",
        "  exitcode  : -6 (pid: 4242)",
    ])  # fmt: skip
    a = analyse([SourceFile("node-a.log", text.encode())])
    assert a.initiating_rank == 3
    assert not any("timed out or lost its peer" in r for r in a.reasons), a.reasons


def test_stored_analyses_in_the_old_words_read_in_the_terms_words() -> None:
    old = {"summary": "x", "suggested_owner": "infrastructure", "initiating_rank": 1}
    assert read_analysis(old)["suggested_owner"] == "provider"
    assert read_analysis({**old, "suggested_owner": "application"})["suggested_owner"] == (
        "customer"
    )
    assert read_analysis({**old, "suggested_owner": "bogus"})["suggested_owner"] == ("undetermined")
    doc = read_analysis(old)
    assert doc["attempts"] == [] and doc["candidates"] == [] and doc["first"] == "ending"
    assert first_ever(old)["initiating_rank"] == 1


def test_a_second_rendezvous_opens_an_attempt_even_without_the_restart_line() -> None:
    from engine.failures.attempts import attempt_marks

    text = "\n".join([
        _agent("07:00:00", "[default] Rendezvous complete for workers. Result:"),
        "[default0]:step 0",
        _agent("07:00:11", "[default] Rendezvous complete for workers. Result:"),
        "[default0]:step 0",
        _agent("07:00:20", _RESTART_LINE),
        _agent("07:00:21", "[default] Rendezvous complete for workers. Result:"),
    ])  # fmt: skip
    assert [(line, attempt) for line, attempt, _ in attempt_marks(text, year=2026, tz=UTC)] == [
        (3, 1),
        (6, 2),
    ]


def test_two_agents_in_one_file_count_one_restart() -> None:
    from engine.failures.attempts import attempt_marks

    rdzv = "[default] Rendezvous complete for workers. Result:"
    text = "\n".join([
        _agent("07:00:00", rdzv),
        _agent("07:00:01", rdzv),  # the other node's agent, same round
        "[default0]:step 0",
        _agent("07:00:20", _RESTART_LINE),
        _agent("07:00:20", _RESTART_LINE),
        _agent("07:00:21", rdzv),
        _agent("07:00:22", rdzv),
        "[default0]:step 0",
    ])  # fmt: skip
    assert [(line, attempt) for line, attempt, _ in attempt_marks(text, year=2026, tz=UTC)] == [
        (5, 1)
    ]
