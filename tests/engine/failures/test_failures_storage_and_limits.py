"""Failures that start outside the job's code and outside the GPU: a shared filesystem that stops
answering, a disk that fills, the scheduler's time limit, a site prolog that refuses a node, and
a pod no node would take. Each names its cause, and an owner or what would decide one."""

from __future__ import annotations

import pytest

from engine.failures import Analysis, SourceFile, analyse


def _analyse(text: str, name: str = "rank0.log") -> Analysis:
    return analyse([SourceFile(name, text.encode())])


RANK_WAITS = (
    "[rank5]:[E302 10:14:07.882113 93121 ProcessGroupNCCL.cpp:616] [Rank 5] Watchdog caught "
    "collective operation timeout: WorkNCCL(SeqNum=4412, OpType=ALLREDUCE, NumelIn=1, "
    "NumelOut=1, Timeout(ms)=600000) ran for 600058 milliseconds before timing out.\n"
)


@pytest.mark.parametrize(
    ("line", "cause"),
    [
        (
            "2026-03-02T10:03:40.001122+00:00 gpu-node-012 kernel: nfs: server storage01 not "
            "responding, still trying",
            "NFS server storage01 stopped answering",
        ),
        (
            "2026-03-02T10:03:40.001122+00:00 gpu-node-012 kernel: Lustre: "
            "scratch-MDT0000-mdc-ffff9a1c2b3d4000: Connection to scratch-MDT0000 (at "
            "10.0.0.2@o2ib) was lost; in progress operations using this service will wait for "
            "recovery to complete",
            "the Lustre connection to scratch-MDT0000 was lost",
        ),
        (
            "2026-03-02T10:03:40.001122+00:00 gpu-node-012 kernel: LustreError: 167-0: "
            "scratch-OST0002-osc-ffff9a1c2b3d4000: This client was evicted by scratch-OST0002; "
            "in progress operations using this service will fail.",
            "Lustre's scratch-OST0002 evicted this client",
        ),
    ],
)
def test_a_shared_filesystem_that_stops_answering_is_the_clusters_before_the_ranks_timeout(
    line: str, cause: str
) -> None:
    result = analyse(
        [SourceFile("syslog", (line + "\n").encode()), SourceFile("rank5.log", RANK_WAITS.encode())]
    )
    first = result.first_failure
    assert first is not None and first.kind == "storage_lost"
    assert first.detail["cause"] == cause
    assert result.initiating_node == "gpu-node-012"
    assert result.suggested_owner == "provider"


def test_a_full_disk_is_left_undetermined_naming_what_decides_it() -> None:
    result = _analyse(
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/workspace/train.py", line 301, in save_checkpoint\n'
        "[rank0]:     torch.save(state, path)\n"
        "[rank0]: OSError: [Errno 28] No space left on device\n"
    )
    assert result.first_failure is not None and result.first_failure.kind == "disk_full"
    assert result.initiating_rank == 0
    assert result.suggested_owner == "undetermined"
    assert "which filesystem it was" in result.owner_reasons[0]


def test_a_quota_the_job_went_past_is_the_jobs() -> None:
    result = _analyse("[rank0]: OSError: [Errno 122] Disk quota exceeded: '/home/u/ckpt'\n")
    assert result.suggested_owner == "customer"


def test_the_scheduler_s_time_limit_names_what_decides_its_owner() -> None:
    result = _analyse(
        "[rank0]:[2026-03-02 10:59:58] step 4810 loss 2.113\n"
        "slurmstepd: error: *** JOB 123456 ON gpu-node-017 CANCELLED AT 2026-03-02T11:00:03 "
        "DUE TO TIME LIMIT ***\n",
        name="slurm-123456.out",
    )
    assert result.suggested_owner == "undetermined"
    assert "ended the job at its time limit" in result.owner_reasons[0]
    assert "step times against the fixture's baseline" in result.owner_reasons[0]


@pytest.mark.parametrize(
    "row",
    [
        # The Job controller's warning when `activeDeadlineSeconds` runs out.
        "5m          Warning   DeadlineExceeded   job/llama-train            "
        "Job was active longer than specified deadline",
        # The kubelet's, for a pod's own deadline.
        "5m          Normal    DeadlineExceeded   pod/llama-train-worker-0   "
        "Pod was active on the node longer than the specified deadline",
    ],
    ids=["job", "pod"],
)
def test_a_kubernetes_deadline_is_a_time_limit_that_names_what_decides_its_owner(row) -> None:
    table = "LAST SEEN   TYPE      REASON             OBJECT                     MESSAGE\n"
    result = analyse(
        [
            SourceFile("events.txt", (table + row + "\n").encode()),
            SourceFile("rank5.log", RANK_WAITS.encode()),
        ]
    )
    first = result.first_failure
    assert first is not None and first.kind == "scheduler" and first.detail["time_limit"]
    assert result.suggested_owner == "undetermined"
    assert "ended the job at its time limit" in result.owner_reasons[0]


@pytest.mark.parametrize(
    ("name", "text", "node"),
    [
        (
            "syslog",
            "2026-03-02T10:00:01.112345+00:00 gpu-node-044 slurmd[2211]: error: [job 123460] "
            "prolog failed status=1:0\n",
            "gpu-node-044",
        ),
        (
            "sinfo-R.txt",
            "REASON               USER      TIMESTAMP           NODELIST\n"
            "Prolog error         slurm     2026-03-02T10:00:01 gpu-node-044\n",
            "gpu-node-044",
        ),
        (
            "squeue.txt",
            "123460  gpu  train  arun PD  0:00  4 (launch failed requeued held)\n",
            None,
        ),
    ],
)
def test_a_site_prolog_that_refused_a_node_is_the_clusters(
    name: str, text: str, node: str | None
) -> None:
    result = _analyse(text, name=name)
    first = result.first_failure
    assert first is not None and first.kind == "launch_failure"
    assert first.detail["launch"] == "prolog"
    assert result.initiating_node == node
    assert result.suggested_owner == "provider"


def _unschedulable(message: str) -> Analysis:
    table = (
        "LAST SEEN   TYPE      REASON             OBJECT                     MESSAGE\n"
        f"2m          Warning   FailedScheduling   pod/llama-train-worker-0   {message}\n"
    )
    return _analyse(table, name="events.txt")


def test_a_pod_no_node_would_take_for_unhealthy_gpus_is_the_clusters() -> None:
    result = _unschedulable(
        "0/16 nodes are available: 4 node(s) had untolerated taint {nvidia.com/gpu.unhealthy: }, "
        "12 Insufficient nvidia.com/gpu. preemption: 0/16 nodes are available: 16 No preemption "
        "victims found for incoming pod."
    )
    first = result.first_failure
    assert first is not None and first.kind == "launch_failure"
    assert first.detail["cause"].startswith("the pod was never scheduled (0/16 nodes")
    assert result.suggested_owner == "provider"
    assert "4 node(s) were tainted nvidia.com/gpu.unhealthy" in result.owner_reasons[0]


def test_a_pod_waiting_for_gpus_others_hold_names_what_decides_its_owner() -> None:
    result = _unschedulable("0/16 nodes are available: 16 Insufficient nvidia.com/gpu.")
    assert result.suggested_owner == "undetermined"
    assert "what holds the GPUs the pod asked for" in result.owner_reasons[0]


@pytest.mark.parametrize(
    ("why", "owner"),
    [
        ("Requested node configuration is not available", "customer"),
        ("Invalid generic resource (gres) specification", "customer"),
        ("Socket timed out on send/recv operation", "provider"),
        ("Required partition not available (inactive or drain)", "undetermined"),
    ],
)
def test_slurm_refusing_the_jobs_request_names_whose_side_it_is(why: str, owner: str) -> None:
    result = _analyse(f"srun: error: Unable to allocate resources: {why}\n", name="slurm.out")
    first = result.first_failure
    assert first is not None and first.kind == "launch_failure"
    assert first.detail["cause"] == f"Slurm refused the job's request ({why})"
    assert result.suggested_owner == owner
