"""Scheduler and orchestrator evidence: Slurm and Kubernetes bundles as those tools print them.

The bundles under tests/data/failures/schedulers/ are written by schedulers/generate.py (see
tests/data/failures/README.md); each test states what a careful reader of the logs concludes.
"""

from __future__ import annotations

import importlib.util
from datetime import UTC, datetime
from pathlib import Path

import pytest
from failures_helpers import DATA, one

from engine.failures import Analysis, SourceFile, analyse, read_paths
from engine.failures.hostlist import expand_nodelist, expand_tasks, tasks_per_node
from engine.failures.kube import Pod, is_previous, pod_of_file
from engine.failures.sacct import sacct_events

RUNS = DATA / "schedulers"
HERE = Path(__file__).parent


def _files(case: str, *, skip: tuple[str, ...] = ()) -> list[SourceFile]:
    paths = sorted(p for p in (RUNS / case).rglob("*") if p.is_file())
    return [
        SourceFile(str(p.relative_to(RUNS / case)), p.read_bytes())
        for p in paths
        if not any(s in p.name for s in skip)
    ]


def _run(case: str, *, skip: tuple[str, ...] = ()) -> Analysis:
    return analyse(_files(case, skip=skip), year=2024)


@pytest.mark.parametrize(
    ("text", "hosts"),
    [
        ("gpu-node-[a-d]", ["gpu-node-a", "gpu-node-b", "gpu-node-c", "gpu-node-d"]),
        ("gpu[01-04,07]", ["gpu01", "gpu02", "gpu03", "gpu04", "gpu07"]),
        ("rack[1-2]-gpu[8-9]", ["rack1-gpu8", "rack1-gpu9", "rack2-gpu8", "rack2-gpu9"]),
        ("login,gpu[9-10]", ["login", "gpu9", "gpu10"]),
        ("gpu[3-1]", []),
        ("gpu[01-04", []),
    ],
)
def test_slurm_node_lists_expand_as_slurm_writes_them(text: str, hosts: list[str]) -> None:
    assert expand_nodelist(text) == hosts


def test_slurm_task_lists_and_tasks_per_node() -> None:
    assert expand_tasks("8,10-12") == [8, 10, 11, 12]
    assert tasks_per_node("8(x3),2") == [8, 8, 8, 2]


def test_a_slurm_cgroup_oom_is_tied_to_its_task_rank_and_node() -> None:
    a = _run("slurm_cgroup_oom")
    first = a.to_json()["first_failure"]
    assert (a.initiating_rank, a.initiating_node) == (11, "gpu-node-b")
    assert first["kind"] == "oom" and first["category"] == "job"
    # The kernel's own line is the kill; Slurm's reports of it come after it.
    assert first["source"] == "gpu-node-b/dmesg.txt" and first["detail"]["task"] == 11
    assert first["time"] == "2024-05-01T12:03:41+00:00"
    assert a.world_size == 16
    slurm = next(e for e in a.chain if "oom_kill event" in e.text)
    assert (slurm.rank, slurm.node, slurm.detail["task"]) == (11, "gpu-node-b", 11)
    assert "the one task killed in step 4242.0" in slurm.detail["tied_to"]


def test_sacct_gives_each_steps_state_and_exit_code() -> None:
    a = _run("slurm_cgroup_oom")
    steps = {e.detail["step"]: e.detail for e in a.timeline if e.detail.get("from") == "sacct"}
    assert steps["4242.0"]["state"] == "OUT_OF_MEMORY" and steps["4242.0"]["category"] == "job"
    assert "4242.extern" not in steps  # it completed: no evidence
    fixed = sacct_events("sacct.txt", (RUNS / "slurm_node_failure" / "sacct-4343.txt").read_text(),
                         tz=UTC)  # fmt: skip
    by_step = {e.detail["step"]: e for e in fixed}
    assert by_step["4343.0"].detail["state"] == "NODE_FAIL"
    assert by_step["4343.0"].detail["exitcode"] == 1
    assert by_step["4343.batch"].detail["signal"] == 15
    assert by_step["4343"].time_utc == datetime(2024, 5, 1, 12, 15, 54, tzinfo=UTC)


def test_a_slurm_node_failure_names_the_node_and_makes_the_cuda_error_infrastructure() -> None:
    a = _run("slurm_node_failure")
    first = a.to_json()["first_failure"]
    assert (a.initiating_rank, a.initiating_node) == (17, "gpu-node-c")
    assert first["kind"] == "cuda_error" and "unspecified launch failure" in first["message"]
    assert first["category"] == "infrastructure"
    assert (
        "gpu-node-c was declared failed at most 5 min after" in first["detail"]["category_reason"]
    )
    assert a.world_size == 32


def test_the_node_comes_from_srun_even_without_the_node_list() -> None:
    files = _files("slurm_node_failure")
    out = next(f for f in files if f.name == "slurm-4343.out")
    text = b"\n".join(x for x in out.data.split(b"\n") if not x.startswith(b"SLURM_"))
    a = analyse([SourceFile(out.name, text)], year=2024)
    assert (a.initiating_rank, a.initiating_node) == (17, "gpu-node-c")


def test_a_pytorchjob_oomkilled_worker_is_its_rank_on_its_kubernetes_node() -> None:
    a = _run("kube_pytorchjob_oom")
    first = a.to_json()["first_failure"]
    assert (a.initiating_rank, a.initiating_node) == (4, "gke-train-a3-pool-5f2c9e1d-w9pd")
    assert first["kind"] == "oom" and first["category"] == "job"
    assert first["time"] == "2024-05-01T12:05:30+00:00"
    assert first["detail"]["pod"] == "llm-ft-worker-3" and first["detail"]["restart_count"] == 1
    assert a.world_size == 5
    # A pod's name is never a node, not even where NCCL prints it as the host.
    assert not [e for e in a.timeline if (e.node or "").startswith("llm-ft-")]


def test_the_restarted_containers_later_nccl_warning_is_never_the_first_failure() -> None:
    a = _run("kube_pytorchjob_oom")
    # `Net : Connect to 10.8.0.9<45123> failed : Connection refused`: its old peer is gone.
    warn = next(e for e in a.timeline if e.source == "logs/llm-ft-worker-3.log")
    assert warn.kind == "peer_lost" and warn.detail["after_restart"] and warn.secondary
    assert not any(e.kind == "remote_peer_failed" for e in a.timeline)
    # Without `kubectl describe pod` the OOM is unknown, yet the restarted container's warning
    # is still not the first failure: rank 4 is the one that did not wait.
    b = _run("kube_pytorchjob_oom", skip=("describe",))
    assert b.first_failure is not None and b.first_failure.kind != "nccl_warn_transport"
    assert (b.initiating_rank, b.initiating_node) == (4, "gke-train-a3-pool-5f2c9e1d-w9pd")


def test_the_rank_printed_by_the_pod_wins_over_its_replica_index() -> None:
    events = b"LAST SEEN   TYPE     REASON      OBJECT                MESSAGE\n"
    events += (b"20m         Normal   Scheduled   pod/big-job-worker-2  Successfully assigned "
               b"ml/big-job-worker-2 to gpu-node-q\n")  # fmt: skip
    log = b"2024-05-01T12:00:00.000000000Z RANK=7 WORLD_SIZE=8\n"
    log += b"2024-05-01T12:00:03.000000000Z RuntimeError: CUDA error: an illegal memory access\n"
    listing = SourceFile("events.txt", events)
    a = analyse([listing, SourceFile("logs/big-job-worker-2.log", log)], year=2024)
    assert (a.initiating_rank, a.initiating_node, a.world_size) == (7, "gpu-node-q", 8)
    unnamed = SourceFile("logs/big-job-worker-2.log", log.replace(b"RANK=7 ", b""))
    a = analyse([listing, unnamed], year=2024)
    assert a.initiating_rank == 2  # no master in the bundle: worker-i is rank i
    # Without any Kubernetes listing, a log named like a replica is a node's log.
    a = analyse([SourceFile("gpu-worker-2.log", log.replace(b"RANK=7 ", b""))], year=2024)
    assert a.initiating_rank is None


def test_a_container_that_exited_with_an_error_is_its_pods_rank_and_node() -> None:
    describe = (
        "Name:             ft-worker-1\nNode:             gpu-node-k7/10.128.0.9\n"
        "Containers:\n  pytorch:\n    State:          Terminated\n"
        "      Reason:       Error\n      Exit Code:    1\n"
        "      Started:      Wed, 01 May 2024 12:00:00 +0000\n"
        "      Finished:     Wed, 01 May 2024 12:07:12 +0000\n    Restart Count:  0\n"
    )
    a = analyse([SourceFile("describe.txt", describe.encode())], year=2024)
    ended = next(e for e in a.timeline if e.kind == "scheduler")
    assert (ended.rank, ended.node, ended.detail["exitcode"]) == (1, "gpu-node-k7", 1)
    assert ended.time_utc == datetime(2024, 5, 1, 12, 7, 12, tzinfo=UTC)
    assert ended.detail["reason"] == "Error" and ended.secondary


@pytest.mark.parametrize(
    ("name", "pod", "previous"),
    [
        ("logs/llm-ft-worker-3_previous.log", "llm-ft-worker-3", True),
        ("llm-ft-worker-3-previous.txt", "llm-ft-worker-3", True),
        ("llm-ft-worker-3/pytorch.log", "llm-ft-worker-3", False),
        ("logs/llm-ft-worker-30.log", "llm-ft-worker-30", False),
    ],
)
def test_a_pods_log_is_found_by_its_name(name: str, pod: str, previous: bool) -> None:
    pods = {p: Pod(p) for p in ("llm-ft-worker-3", "llm-ft-worker-30")}
    assert (pod_of_file(name, pods), is_previous(name)) == (pod, previous)


def test_nccl_duplicate_gpu_is_the_jobs_device_assignment() -> None:
    a = _run("nccl_duplicate_gpu")
    first = a.to_json()["first_failure"]
    assert first["kind"] == "nccl_duplicate_gpu" and first["category"] == "job"
    assert a.initiating_node == "gpu-node-a" and a.world_size == 4
    assert a.initiating_rank in first["detail"]["ranks"] and len(first["detail"]["ranks"]) == 2
    assert first["detail"]["bus_id"] in ("1a000", "1b000")


def test_a_line_without_a_timestamp_shows_its_neighbours_bounds_never_their_time() -> None:
    text = (
        "2024-05-01 12:00:00,000 INFO [rank0] step 10\n"
        "[rank3]: RuntimeError: CUDA error: unspecified launch failure\n"
        "2024-05-01 12:00:09,000 INFO [rank0] step 11\n"
    )
    a = analyse([SourceFile("job.log", text.encode())], year=2024)
    first = a.to_json()["first_failure"]
    assert a.initiating_rank == 3
    assert first["time"] is None
    assert first["time_range"] == {
        "after": "2024-05-01T12:00:00+00:00",
        "before": "2024-05-01T12:00:09+00:00",
    }


@pytest.mark.parametrize(
    ("line", "size"),
    [
        ("[rank3]: starting rank 3/16\n", 16),
        ("WORLD_SIZE=8 RANK=0\n", 8),
        ("SLURM_NTASKS=12\n", 12),
    ],
)
def test_the_world_size_from_any_line(line: str, size: int) -> None:
    a = analyse([SourceFile("job.log", line.encode())], year=2024)
    assert a.world_size == size


def test_slurms_older_oom_wording_and_the_replica_count() -> None:
    e = one(
        "slurmstepd: error: Detected 1 oom-kill event(s) in step 370626.batch cgroup. Some "
        "of your processes may have been killed by the cgroup out-of-memory handler."
    )
    assert (e.kind, e.detail["slurm_step"], e.detail["limit"]) == ("oom", "370626.batch", True)
    pods = "NAME         READY   STATUS    RESTARTS   AGE   IP         NODE\n"
    pods += "".join(f"{f'j-{kind}-{i}':<13}1/1     Running   0          5m    10.0.0.{i}   n{i}\n"
                    for kind, i in (("master", 0), ("worker", 0), ("worker", 1)))  # fmt: skip
    a = analyse([SourceFile("pods.txt", pods.encode())], year=2024)
    assert a.world_size == 3


def test_a_number_past_the_analysable_world_is_not_its_size() -> None:
    a = analyse([SourceFile("job.log", b"WORLD_SIZE=4\nshard rank 3/99999999 ready\n")],
                year=2024)  # fmt: skip
    assert a.world_size == 4


def test_a_line_that_names_a_ranks_host_pins_its_node() -> None:
    text = (
        "[2024-05-01 12:00:00,000] INFO rank=2 host=gpu-node-a starting worker\n"
        "[2024-05-01 12:00:05,000] [rank2]: Traceback (most recent call last):\n"
        '[rank2]:   File "train.py", line 40, in <module>\n'
        "[rank2]: ValueError: loss is NaN at step 40\n"
    )
    a = analyse([SourceFile("job.log", text.encode())], year=2024)
    assert (a.initiating_rank, a.initiating_node) == (2, "gpu-node-a")


def test_torchrun_under_srun_a_task_is_a_node_not_a_rank() -> None:
    lines = [f"{t}: [rank{t * 2 + i}]: rank {t * 2 + i}/4 ready" for t in (0, 1) for i in (0, 1)]
    lines += ["1: 2024-05-01 12:00:00,000 agent heartbeat", "1: CUDA error: misaligned address"]
    lines += ["srun: error: gpu-node-b: task 1: Exited with exit code 1"]
    a = analyse([SourceFile("slurm-9.out", ("\n".join(lines) + "\n").encode())], year=2024)
    assert a.initiating_rank is None and a.initiating_node == "gpu-node-b"
    assert a.world_size == 4


@pytest.mark.parametrize(
    ("line", "kind", "category"),
    [
        ("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
         "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, invalid "
         "usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.20.5",
         "nccl_invalid_usage", "job"),
        ("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
         "AssertionError: Check batch related parameters. train_batch_size is not equal to "
         "micro_batch_per_gpu * gradient_acc_step * world_size 256 != 4 * 8 * 4",
         "deepspeed_error", "job"),
        ("srun: error: Node failure on gpu-node-c", "scheduler", "infrastructure"),
        ("srun: error: gpu-node-b: task 11: Out Of Memory", "scheduler", "job"),
    ],
)  # fmt: skip
def test_decoded_errors_have_a_kind_and_a_category(line: str, kind: str, category: str) -> None:
    a = analyse([SourceFile("job.log", f"{line}\n".encode())], year=2024)
    event = next(e for e in [*a.timeline, *a.chain] if e.kind == kind)
    assert event.detail["category"] == category


def test_a_cuda_launch_failure_alone_has_no_category() -> None:
    e = one("[rank3]: RuntimeError: CUDA error: unspecified launch failure")
    assert e.kind == "cuda_error" and "category" not in e.detail


def test_the_bundles_read_from_disk_as_a_user_uploads_them() -> None:
    paths = [str(p) for p in sorted((RUNS / "slurm_cgroup_oom").rglob("*")) if p.is_file()]
    a = analyse(read_paths(paths), year=2024)
    assert (a.initiating_rank, a.initiating_node) == (11, "gpu-node-b")


def test_the_committed_bundles_are_what_the_generator_writes(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("generate", HERE / "schedulers" / "generate.py")
    assert spec is not None and spec.loader is not None
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    generate.main(tmp_path)
    made = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    committed = sorted(p.relative_to(RUNS) for p in RUNS.rglob("*") if p.is_file())
    assert made == committed
    for rel in made:
        assert (tmp_path / rel).read_text() == (RUNS / rel).read_text(), rel


@pytest.mark.parametrize(
    ("case", "owner", "confidence"),
    [
        ("slurm_cgroup_oom", "customer", "high"),  # the job's own memory limit
        ("slurm_node_failure", "provider", "high"),  # the scheduler declared the node failed
        ("kube_pytorchjob_oom", "customer", "high"),  # OOMKilled at the container's limit
        # Two ranks were given one GPU: the job's device assignment. Both print the same
        # error, so which of the two is first is not clear: low, with the other listed.
        ("nccl_duplicate_gpu", "customer", "low"),
    ],
)
def test_each_scheduler_case_has_the_owner_and_confidence_a_careful_reader_gives(
    case: str, owner: str, confidence: str
) -> None:
    a = _run(case)
    assert (a.suggested_owner, a.confidence) == (owner, confidence), a.owner_reasons
    if confidence != "high":
        assert a.to_json()["candidates"]
