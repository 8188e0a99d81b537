"""A causal line at the top of a file, before any stamped line: known only to precede the next."""

from __future__ import annotations

from engine.failures import analyse
from engine.failures.cli import render
from engine.failures.lines import classify
from engine.failures.model import SourceFile

# As srun and slurmstepd print a node lost mid-step (Slurm's own strings), nothing stamped before.
JEAN_ZAY = (
    "** Finished validation **\n"
    "srun: error: Node failure on jz-gpu-37\n"
    "srun: Job step aborted: Waiting up to 62 seconds for job step to finish.\n"
    "slurmstepd: error: *** STEP 1943824.0 ON jz-gpu-17 CANCELLED AT 2023-03-06T03:17:51 DUE "
    "TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***\n"
    "srun: error: jz-gpu-17: tasks 0-7: Killed\n"
)


def test_the_node_srun_names_failed_comes_first_though_only_the_cancel_is_stamped() -> None:
    result = analyse([SourceFile("slurm-1943824.out", JEAN_ZAY.encode())])
    first = result.first_failure
    assert first is not None and (first.kind, first.node, first.line_no) == (
        "scheduler",
        "jz-gpu-37",
        2,
    )
    assert result.initiating_node == "jz-gpu-37"
    assert result.suggested_owner == "provider"
    assert any("logged before 2023-03-06 03:17:51 UTC" in r for r in result.reasons)


def test_a_node_failure_cancel_keeps_its_step_and_time_but_does_not_blame_its_host() -> None:
    line = JEAN_ZAY.splitlines()[3]
    found = classify(line)
    assert found is not None
    kind, detail = found
    assert (kind, detail["cause"], detail["step"]) == ("scheduler", "node failure", "1943824.0")
    assert detail["cancelled_at"] == "2023-03-06T03:17:51"
    assert detail["step_host"] == "jz-gpu-17" and "host" not in detail


def test_a_line_bounded_after_an_earlier_stamped_fault_does_not_take_its_place() -> None:
    slurm = (
        "srun: error: Node failure on gpu-9\n"
        "slurmstepd: error: *** STEP 77.0 ON gpu-1 CANCELLED AT 2024-05-01T12:00:10 DUE TO NODE "
        "FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***\n"
    )
    kernel = (
        "2024-05-01T12:00:05,000000+00:00 gpu-3 kernel: NVRM: Xid (PCI:0000:18:00): 79, "
        "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
    )
    result = analyse(
        [SourceFile("slurm-77.out", slurm.encode()), SourceFile("gpu-3/kern.log", kernel.encode())]
    )
    first = result.first_failure
    assert first is not None and (first.kind, first.node) == ("xid", "gpu-3")


def test_the_cli_names_the_failed_node_and_an_unknown_rank_as_a_question_mark() -> None:
    text = render(analyse([SourceFile("slurm-1943824.out", JEAN_ZAY.encode())]))
    assert "Initiating: rank ? on jz-gpu-37" in text
    assert "rank ?  jz-gpu-37  scheduler  slurm-1943824.out:2" in text
    assert "rank None" not in text
