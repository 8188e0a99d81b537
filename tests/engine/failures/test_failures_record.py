"""A failed-run upload against the fixture's failure record: the launch command, the scheduler's
output and a rank map are noticed as the files stream past (unchanged, one at a time); what the
record asks for and the upload lacks is listed, in the record's order, with what to add."""

from __future__ import annotations

import pickle
from typing import Any

from engine.evidence.fixtures import default_spec
from engine.failures import analyse
from engine.failures.model import SourceFile
from engine.failures.record import InputsSeen, record_gaps
from engine.failures.synthetic import Scenario, cascade

EVERYTHING = default_spec(gpu_model="H100", nodes=2, gpus_per_node=8)["failure_record"]

LAUNCH = b"""+ torchrun --nnodes 2 --nproc-per-node 8 --rdzv-endpoint gpu-node-a:29500 train.py
[rank0]: step 1 loss 2.31
"""
SLURM = b"""srun: error: gpu-node-c: task 17: Exited with exit code 1
slurmstepd: error: *** STEP 4242.0 ON gpu-node-c CANCELLED AT 2026-11-04T10:31:02 ***
"""
K8S = b"""Name:         trainer-worker-4
Controlled By:  PyTorchJob/trainer
    Last State:     Terminated
      Reason:       OOMKilled
Events:
"""


def _seen(*files: SourceFile) -> tuple[InputsSeen, list[SourceFile]]:
    seen = InputsSeen()
    return seen, list(seen.watch(iter(files)))


def test_the_inputs_are_noticed_as_the_files_pass_through_unchanged() -> None:
    files = [
        SourceFile("launch.sh", LAUNCH),
        SourceFile("slurm-4242.out", SLURM),
        SourceFile("rank_map.csv", b"rank,node\n0,gpu-node-a\n1,gpu-node-b\n"),
        SourceFile("fr/nccl_trace_rank_0", pickle.dumps({"entries": []})),
    ]
    seen, passed = _seen(*files)
    assert passed == files
    assert seen.to_json() == {
        "launch_command": ["launch.sh"],
        "scheduler_output": ["slurm-4242.out"],
        "rank_map": ["rank_map.csv"],
    }
    assert _seen(SourceFile("describe.txt", K8S))[0].scheduler_output == ["describe.txt"]


def test_a_log_line_that_only_names_a_launcher_is_not_a_launch_command() -> None:
    seen, _ = _seen(SourceFile("slurm.out", SLURM), SourceFile("a.log", b"torchrun failed\n"))
    assert seen.launch_command == []


def _analysis(**values: Any) -> dict[str, Any]:
    base = {"world_size": 16, "missing_ranks": [], "missing_dumps": [], "flight_recorder": "hang"}
    return {**base, **values}


def test_what_the_record_asks_and_the_upload_lacks_is_listed_in_the_records_order() -> None:
    inputs: dict[str, list[str]] = {"launch_command": [], "scheduler_output": [], "rank_map": []}
    analysis = _analysis(missing_ranks=[4, 5, 6, 7, 12], missing_dumps=[3], inputs=inputs)
    gaps = record_gaps(EVERYTHING, analysis)
    assert [g.key for g in gaps] == [
        "launch_command",
        "worker_gpu_map",
        "per_worker_logs",
        "flight_recorder_dumps",
        "scheduler_output",
    ]
    by_key = {g.key: g.detail for g in gaps}
    assert by_key["per_worker_logs"] == "No log line from ranks 4-7, 12 of 16."
    assert by_key["flight_recorder_dumps"] == "No dump from ranks 3 of 16."
    assert "torchrun, srun, mpirun" in by_key["launch_command"]
    # A rank map sent beside the bundle counts; so does a record that does not ask.
    assert "worker_gpu_map" not in {g.key for g in record_gaps(EVERYTHING, analysis, rank_map=True)}
    assert record_gaps(dict.fromkeys(EVERYTHING, False), analysis) == []


def test_no_dump_at_all_says_how_to_get_them_and_old_analyses_are_judged_on_what_they_hold() -> (
    None
):
    gaps = record_gaps(EVERYTHING, _analysis(flight_recorder="absent"))
    assert [g.key for g in gaps] == ["flight_recorder_dumps"]  # no `inputs`: not judged on them
    assert "TORCH_NCCL_TRACE_BUFFER_SIZE" in gaps[0].detail


def test_a_synthetic_slurm_job_holds_its_scheduler_output_and_no_launch_command() -> None:
    seen = InputsSeen()
    result = analyse(seen.watch(iter(cascade(Scenario(ranks=32, culprit=9)))))
    doc = {**result.to_json(), "inputs": seen.to_json()}
    keys = [g.key for g in record_gaps(EVERYTHING, doc)]
    assert "scheduler_output" not in keys and "launch_command" in keys
