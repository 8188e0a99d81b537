"""Ray's actor lost with its node (`RayActorError`, `ActorDiedError`): the node it names is the
one that died, and how Ray says it went decides whose it is (block shapes from Ray's
`ActorDiedError` and its GCS's node-death cause)."""

from __future__ import annotations

import pytest

from engine.failures import Analysis, SourceFile, analyse

_TRACEBACK = (
    "2025-03-04 10:21:40,552\tERROR trial_runner.py:1050 -- Trial TorchTrainer_1a2b3 errored\n"
    "Traceback (most recent call last):\n"
    '  File "/opt/conda/lib/python3.11/site-packages/ray/_private/worker.py", line 2755, in get\n'
    "    values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)\n"
)
_FIELDS = (
    "\tclass_name: RayTrainWorker\n\tactor_id: 9bd6a51f9c0e3b6f3a5e1d2c01000000\n\tpid: 4242\n"
    "\tnamespace: 5b1e2a9c-1d3f-4e5a-8b7c-9d0e1f2a3b4c\n\tip: 10.0.3.17\n"
)
_NODE = "3a5e7c9b1d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b"
_AFTER = "2025-03-04 10:21:41,003\tINFO tune.py:1009 -- Total run time: 400.01 seconds\n"


def _driver(head: str, cause: str) -> Analysis:
    text = f"{_TRACEBACK}{head}\n{_FIELDS}{cause}{_AFTER}"
    return analyse([SourceFile("ray-driver.log", text.encode())], year=2025)


def test_an_actor_whose_node_died_unexpectedly_is_the_node_it_names_lost() -> None:
    a = _driver(
        "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
        f"The actor died because its node has died. Node Id: {_NODE}\n\tthe actor's node was "
        "terminated unexpectedly: health check failed due to missing too many heartbeats\n",
    )
    first = a.first_failure
    assert first is not None
    assert (first.kind, first.node, first.line_no) == ("node_crash", "10.0.3.17", 5)
    assert first.detail["ray_node_id"] == _NODE
    assert a.suggested_owner == "provider", a.owner_reasons
    reason = a.owner_reasons[0]
    assert "10.0.3.17" in reason and "missing too many heartbeats" in reason
    assert [e.kind for e in a.timeline] == ["node_crash"]  # the block's lines are one event


def test_older_ray_s_actor_error_without_a_reason_is_the_node_lost_too() -> None:
    a = _driver(
        "ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.",
        f"The actor is dead because its node has died. Node Id: {_NODE}\n",
    )
    first = a.first_failure
    assert first is not None and (first.kind, first.node) == ("node_crash", "10.0.3.17")
    assert a.suggested_owner == "provider"


@pytest.mark.parametrize(
    ("how", "words"),
    [
        ("terminated expectedly: received SIGTERM",
         "terminated expectedly (received SIGTERM), stopped on purpose"),
        ("preempted: preempted by the cloud provider", "preempted (its autoscaler drained it"),
    ],
)  # fmt: skip
def test_a_node_ray_stopped_on_purpose_or_preempted_takes_no_side(how: str, words: str) -> None:
    a = _driver(
        "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
        f"The actor died because its node has died. Node Id: {_NODE}\n\tthe actor's node was "
        f"{how}\n",
    )
    first = a.first_failure
    assert first is not None and first.node == "10.0.3.17"
    assert a.suggested_owner == "undetermined", a.owner_reasons
    reason = a.owner_reasons[0]
    assert f"Ray reports the actor's node 10.0.3.17 {words}" in reason
    assert "what would decide it" in reason


def test_an_actor_that_died_for_its_own_exception_is_not_a_node_lost() -> None:
    a = _driver(
        "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
        "The actor died because of an error raised in its creation task, "
        "\x1b[36mray::RayTrainWorker.__init__()\x1b[39m\n",
    )
    assert all(e.kind != "node_crash" for e in a.timeline)
