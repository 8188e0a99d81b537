"""Kubernetes events of a failed PyTorchJob: `kubectl get events` and the Events section of
`kubectl describe pytorchjob`, as the training operator and the kubelet write them.

`kube_events/bert_pt` is PyTorchJob `bert-pt` in namespace `ml` (master-0 and worker-0..3, one
GPU each, restart policy Never): at 09:21:46 worker-3's container is killed with exit code 137
(OOMKilled at its 160Gi limit, as its `kubectl describe pod` says); the operator marks the job
failed. Ten minutes later the others' watchdogs time out and master-0 and worker-0 exit with 134
(SIGABRT). The events were listed at 09:33, so worker-3's exit is `11m` old and theirs `80s`.
"""

from __future__ import annotations

from failures_helpers import DATA

from engine.failures import Analysis, SourceFile, analyse
from engine.failures.kube_events import read_rows, row_events
from engine.failures.scheduler import read_scheduler

BERT = DATA / "kube_events" / "bert_pt"
WORKER3_NODE = "ip-10-42-21-9.us-west-2.compute.internal"


def _files(*names: str) -> list[SourceFile]:
    logs = sorted((BERT / "logs").iterdir())
    return [SourceFile(n, (BERT / n).read_bytes()) for n in names] + [
        SourceFile(str(p.relative_to(BERT)), p.read_bytes()) for p in logs
    ]


def _analyse(*names: str) -> Analysis:
    return analyse(_files(*names))


def test_the_first_pod_to_exit_in_kubectl_get_events_is_named_with_its_exit_code() -> None:
    result = _analyse("kubectl-get-events.txt")
    first = result.first_failure
    assert first is not None
    # worker-3 of a job with a master is RANK 4 (the operator adds 1 to a worker's index).
    assert (result.initiating_rank, result.initiating_node) == (4, WORKER3_NODE)
    assert (first.source, first.line_no) == ("kubectl-get-events.txt", 29)
    assert first.detail["exit_code"] == 137 and first.detail["signal"] == 9
    assert "exit code 137" in first.detail["cause"] and "bert-pt-worker-3" in first.detail["cause"]
    assert "exit code 137" in result.summary()
    # master-0's exit is listed first in the file but is 80 s old: the teardown, not the cause.
    assert 0 not in [c["rank"] for c in result.candidates]
    assert any("is failed because 1 Worker replica(s) failed" in r for r in result.reasons)
    assert result.confidence == "medium"  # events carry ages, not times
    assert result.world_size == 5


def test_the_events_section_of_kubectl_describe_pytorchjob_names_the_same_replica() -> None:
    result = _analyse("kubectl-describe-pytorchjob-bert-pt.txt")
    first = result.first_failure
    assert first is not None
    assert result.initiating_rank == 4
    assert (first.source, first.line_no) == ("kubectl-describe-pytorchjob-bert-pt.txt", 84)
    assert first.detail["pod"] == "bert-pt-worker-3"
    # No event says where the pod ran.
    assert result.initiating_node is None


def test_the_pod_s_own_describe_turns_exit_code_137_into_its_memory_limit() -> None:
    result = _analyse(
        "kubectl-get-events.txt",
        "kubectl-describe-pytorchjob-bert-pt.txt",
        "kubectl-describe-pod-bert-pt-worker-3.txt",
    )
    first = result.first_failure
    assert first is not None
    assert (first.kind, result.initiating_rank, result.initiating_node) == ("oom", 4, WORKER3_NODE)
    assert result.suggested_owner == "customer"
    assert result.confidence == "high"  # the container's Finished time
    sched = read_scheduler(
        [
            (f.name, f.data.decode())
            for f in _files("kubectl-get-events.txt", "kubectl-describe-pod-bert-pt-worker-3.txt")
        ]
    )
    row = next(e for e in sched.events if e.detail.get("exit_code") == 137)
    assert row.kind == "oom" and "OOMKilled at its memory limit" in row.detail["cause"]


def test_the_job_s_teardown_exits_are_consequences() -> None:
    result = _analyse("kubectl-get-events.txt")
    later = [e for e in result.timeline if e.detail.get("event_reason") == "ExitedWithCode"
             and e.rank in (0, 1)]  # fmt: skip
    assert {e.rank for e in later} == {0, 1}
    assert all(e.secondary and e.detail["signal"] == 6 for e in later)


def test_event_rows_are_read_once_not_again_as_log_lines() -> None:
    result = _analyse("kubectl-get-events.txt")
    lines = [e.line_no for e in result.timeline if e.source == "kubectl-get-events.txt"]
    assert len(lines) == len(set(lines))


def test_node_and_eviction_events_keep_their_meaning() -> None:
    path = DATA / "k8s_events.txt"
    rows = read_rows("k8s_events.txt", path.read_text())
    events = row_events(rows, {})
    assert [(e.kind, e.detail["cause"], e.secondary) for e in events] == [
        ("scheduler", "NodeNotReady", False),
        ("scheduler", "evicted by the kubelet: the node was low on memory", False),
    ]
    # The node that stopped answering comes first: an eviction is weak evidence.
    result = analyse([SourceFile("k8s_events.txt", path.read_bytes())])
    assert result.first_failure is not None
    assert result.first_failure.detail["cause"] == "NodeNotReady"


def test_a_log_line_that_looks_like_an_event_outside_a_table_is_not_a_row() -> None:
    text = (
        "step 3 ok\n  Normal  ExitedWithCode  2m  pytorchjob-controller  Pod: a.b-worker-0 exited\n"
    )
    assert read_rows("train.log", text) == []


def test_a_describe_without_its_name_line_ties_its_events_to_no_pod() -> None:
    # A `kubectl describe pod` pasted from its `Namespace:` line on: its Events are about an
    # object the file does not name, so they map to no pod and no rank, and the reader is told.
    name = "describe_pod_without_name_evicted.txt"
    text = (DATA / "kube_events" / name).read_text()
    rows = read_rows(name, text)
    evicted = next(r for r in rows if r.reason == "Evicted")
    assert evicted.object == "" and evicted.pod() is None
    result = analyse([SourceFile(name, text.encode())])
    event = next(e for e in result.timeline if e.detail.get("event_reason") == "Evicted")
    assert (event.rank, event.node, event.detail["object"]) == (None, None, None)
    assert "pod/" not in repr(result.to_json())
    note = next(m for m in result.missing if m.startswith(f"{name}:38:"))
    assert "4 Kubernetes event row(s) name no object" in note and "without its Name: line" in note
    assert "tied to no pod and so to no rank" in note


_EVENTS_HEADER = "LAST SEEN   TYPE      REASON      OBJECT                MESSAGE\n"


def test_an_eviction_for_using_more_than_requested_starts_the_failure_and_is_the_jobs() -> None:
    text = _EVENTS_HEADER + (
        "12m         Normal    Scheduled   pod/ft-worker-1       Successfully assigned "
        "ml/ft-worker-1 to gpu-node-7\n"
        "11m         Warning   Evicted     pod/ft-worker-1       The node was low on resource: "
        "ephemeral-storage. Threshold quantity: 10Gi, available: 8Gi. Container pytorch was "
        "using 412Gi, request is 0, has larger consumption of ephemeral-storage.\n"
    )
    result = analyse([SourceFile("events.txt", text.encode())])
    first = result.first_failure
    assert first is not None and first.line_no == 3
    assert first.detail["cause"] == "evicted by the kubelet: the node was low on ephemeral-storage"
    assert (result.initiating_rank, result.initiating_node) == (1, "gpu-node-7")
    assert result.suggested_owner == "customer"


def test_a_preempted_pod_starts_the_failure_and_its_owner_waits_on_whose_pod_took_it() -> None:
    text = _EVENTS_HEADER + (
        "10m         Warning   Preempted   pod/ft-worker-2       Preempted by pod "
        "5c1d2e3f-aaaa-bbbb-cccc-0123456789ab on node gpu-node-8\n"
    )
    result = analyse([SourceFile("events.txt", text.encode())])
    assert result.first_failure is not None
    assert result.first_failure.detail["cause"] == "preempted by a higher-priority pod"
    assert result.initiating_node == "gpu-node-8"  # the pod's node, from the message
    assert result.suggested_owner == "undetermined"
    assert "the preempting pod's namespace and priority class" in result.owner_reasons[0]


def test_an_eviction_past_the_pods_own_storage_limit_is_the_jobs() -> None:
    text = _EVENTS_HEADER + (
        "4m          Warning   Evicted     pod/ft-worker-0       Pod ephemeral local storage "
        "usage exceeds the total limit of containers 20Gi.\n"
    )
    result = analyse([SourceFile("events.txt", text.encode())])
    assert result.first_failure is not None
    assert "over its own ephemeral storage limit" in result.first_failure.detail["cause"]
    assert result.suggested_owner == "customer"


def _one_file(name: str) -> Analysis:
    path = DATA / "kube_events" / name
    return analyse([SourceFile(name, path.read_bytes())], year=2020)


def test_a_node_s_describe_puts_its_not_ready_event_on_that_node_not_on_a_pod() -> None:
    result = _one_file("describe_node_p100.txt")
    first = result.first_failure
    assert first is not None
    assert (first.kind, first.node, first.detail["object"]) == ("scheduler", "p100", "node/p100")
    assert result.suggested_owner == "provider"


def test_an_events_section_pasted_on_its_own_is_read_and_names_the_node_it_reports() -> None:
    result = _one_file("describe_node_events_only.txt")
    first = result.first_failure
    assert first is not None
    assert (first.kind, first.node) == ("scheduler", "k8s-agentpool-39580029-vmss000000")
    assert first.detail["event_reason"] == "NodeNotReady"


_KUEUE = (
    "Preempted to accommodate a workload (UID: 527a9fa8-fb86-4116-b295-4f4dd72e478f, JobUID: "
    "1f1c675a-711f-4a13-a3bd-da3d50e6f893) due to {why}; preemptor path: /research/urgent; "
    "preemptee path: /research/train"
)


def _kueue_events(why: str) -> Analysis:
    """Kueue's Normal events: on the Workload it evicts, and on the Job it suspends."""
    message = _KUEUE.format(why=why)
    text = (
        "LAST SEEN   TYPE     REASON      OBJECT                       MESSAGE\n"
        f"6m          Normal   Preempted   workload/job-llm-ft-3c1a7    {message}\n"
        f"6m          Normal   Stopped     job/llm-ft                   {message}\n"
        "6m          Normal   Killing     pod/llm-ft-0-x7k2q           Stopping container pytorch\n"
    )
    return analyse([SourceFile("events.txt", text.encode())])


def test_kueue_giving_the_quota_to_a_higher_priority_workload_of_its_queue_is_the_jobs() -> None:
    result = _kueue_events("prioritization in the ClusterQueue")
    first = result.first_failure
    assert first is not None and first.detail["object"] == "workload/job-llm-ft-3c1a7"
    assert first.detail["cause"] == (
        "Kueue preempted the workload to admit another (prioritization in the ClusterQueue)"
    )
    assert result.suggested_owner == "customer"
    assert "higher-priority workload of the same ClusterQueue" in " ".join(result.owner_reasons)


def test_kueue_reclaiming_quota_the_job_borrowed_is_the_jobs() -> None:
    result = _kueue_events("reclamation within the cohort while borrowing")
    assert result.suggested_owner == "customer"
    assert "borrowed beyond its nominal quota" in " ".join(result.owner_reasons)


def test_kueue_fair_sharing_leaves_the_owner_to_the_agreed_share() -> None:
    result = _kueue_events("Fair Sharing within the cohort")
    first = result.first_failure
    assert first is not None and "Fair Sharing within the cohort" in first.detail["cause"]
    assert result.suggested_owner == "undetermined"


def test_kueue_s_preemption_in_a_describe_workload_events_section_is_read() -> None:
    text = (
        "Name:         job-llm-ft-3c1a7\nNamespace:    research\nKind:         Workload\n"
        "Events:\n"
        "  Type    Reason                 Age    From             Message\n"
        "  ----    ------                 ----   ----             -------\n"
        "  Normal  QuotaReserved          9m23s  kueue-admission  Quota reserved in ClusterQueue "
        "research-cq, wait time since queued was 0s\n"
        "  Normal  EvictedDueToPreempted  2m49s  kueue-admission  "
        + _KUEUE.format(why="prioritization in the ClusterQueue")
        + "\n  Normal  Preempted              2m49s  kueue-admission  "
        + _KUEUE.format(why="prioritization in the ClusterQueue")
        + "\n"
    )
    result = analyse([SourceFile("describe-workload.txt", text.encode())])
    kueue = [e for e in result.timeline if "Kueue" in str(e.detail.get("cause"))]
    assert [e.detail["event_reason"] for e in kueue] == ["Preempted"]
    assert result.suggested_owner == "customer"
