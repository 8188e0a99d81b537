"""The scheduler's records, node snapshots and result files as the tools write them, and the
errors that name the file, line and field of what cannot be read."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.observed.errors import ObservedInputError
from engine.observed.kueue import read_kueue
from engine.observed.nodes import read_kube_nodes, read_sinfo
from engine.observed.results import read_results
from engine.observed.slurm_jobs import read_sacct

DATA = Path(__file__).resolve().parents[2] / "data" / "observed"


def _read(name: str) -> str:
    return (DATA / name).read_text()


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_kueue_workloads_and_events_give_each_job_its_size_times_and_nodes() -> None:
    found = read_kueue("k.json", _read("kueue-workloads-events.json"))
    a, b, c = found.jobs
    assert (a.key, a.gpus, a.nodes) == ("job-pretrain-a-7f3c2", 8, ("gpu-node-a",))
    assert (a.submitted, a.admitted, a.started) == (
        at("2026-03-02T00:50"), at("2026-03-02T00:54"), at("2026-03-02T01:00"),
    )  # fmt: skip
    assert a.running == (
        (at("2026-03-02T01:00"), at("2026-03-02T12:00")),
        (at("2026-03-02T12:24"), at("2026-03-03T00:00")),
    )
    assert (b.admitted, b.started, b.completed) == (
        at("2026-03-02T02:40"),
        at("2026-03-02T02:45"),
        True,
    )
    assert c.running == ((at("2026-03-03T08:05"), at("2026-03-03T20:05")),)


def test_one_preemption_is_one_reclaim_though_kueue_records_it_twice() -> None:
    (reclaim,) = read_kueue("k.json", _read("kueue-workloads-events.json")).reclaims
    assert reclaim.job == "job-pretrain-a-7f3c2"
    assert reclaim.at == at("2026-03-02T12:00")
    assert reclaim.requeued and reclaim.running_again_at == at("2026-03-02T12:24")
    assert "reclamation within the cohort" in reclaim.reason
    assert reclaim.gpus == 8


def test_a_kueue_event_without_a_reason_names_its_line() -> None:
    text = json.dumps({"kind": "List", "items": [{
        "kind": "Event", "metadata": {"name": "wl.1"},
        "involvedObject": {"kind": "Workload", "name": "wl"},
        "firstTimestamp": "2026-03-02T00:00:00Z",
    }]}, indent=2)  # fmt: skip
    with pytest.raises(ObservedInputError) as err:
        read_kueue("events.json", text)
    assert str(err.value) == "events.json, line 7, field reason: the event has no reason"


def test_a_bad_timestamp_and_broken_json_are_named() -> None:
    with pytest.raises(ObservedInputError, match=r"k\.json, line 2: not JSON"):
        read_kueue("k.json", '{"items": [\n  {,}]}')
    text = _read("kueue-workloads-events.json").replace(
        '"creationTimestamp": "2026-03-02T02:00:00Z"', '"creationTimestamp": "yesterday"', 1
    )
    with pytest.raises(ObservedInputError, match=r"field metadata.creationTimestamp: 'yesterday'"):
        read_kueue("k.json", text)


def test_sacct_jobs_skip_steps_and_read_a_requeue_as_a_reclaim() -> None:
    found = read_sacct("sacct.txt", _read("sacct-parsable2.txt"))
    pretrain, evaluation, sweep = found.jobs
    assert (pretrain.key, pretrain.gpus, pretrain.nodes) == ("48213", 16, ("gpu001", "gpu002"))
    assert pretrain.started == at("2026-03-02T00:58") and pretrain.completed
    assert pretrain.running[1] == (at("2026-03-02T12:41"), at("2026-03-03T00:00"))
    assert (evaluation.gpus, evaluation.running) == (8, ((at("2026-03-03T08:04"), None),))
    assert (sweep.started, sweep.nodes) == (None, ())
    (reclaim,) = found.reclaims
    assert (reclaim.at, reclaim.running_again_at) == (
        at("2026-03-02T12:00"),
        at("2026-03-02T12:41"),
    )


def test_sacct_without_its_time_columns_or_with_a_bad_time_says_which() -> None:
    with pytest.raises(ObservedInputError, match=r"line 1, field Submit, Start"):
        read_sacct("s.txt", "JobID|State\n1|COMPLETED\n")
    bad = _read("sacct-parsable2.txt").replace("2026-03-03T08:04:00", "03/03 08:04")
    with pytest.raises(ObservedInputError, match=r"s.txt, line 6, field Start: '03/03 08:04'"):
        read_sacct("s.txt", bad)


def test_kubectl_nodes_snapshot_is_dated_by_the_latest_heartbeat() -> None:
    snap = read_kube_nodes("n.json", _read("nodes-2026-03-02T1200.json"))
    assert snap.at == at("2026-03-02T12:00")
    assert (snap.allocatable_gpus, snap.healthy_gpus) == (16, 8)
    assert snap.nodes[1].why == "GpuUnhealthy (XidCriticalError)"
    cordoned = read_kube_nodes("n.json", _read("nodes-2026-03-03T0000.json"))
    assert (cordoned.allocatable_gpus, cordoned.healthy_gpus) == (8, 8)


def test_sinfo_long_listing_counts_a_drained_node_once_and_out_of_the_pool() -> None:
    snap = read_sinfo("sinfo.txt", _read("sinfo-N-l.txt"), gpus_per_node=8)
    assert snap.at == at("2026-03-03T06:00")
    assert [n.node for n in snap.nodes] == ["gpu001", "gpu002", "gpu003", "gpu004"]
    assert (snap.allocatable_gpus, snap.healthy_gpus) == (24, 24)
    assert snap.nodes[3].why == "drained* (Xid 79 GPU fell off the bus)"


def test_sinfo_gres_column_gives_the_gpus_and_a_not_responding_node_is_unhealthy() -> None:
    snap = read_sinfo("g.txt", _read("sinfo-gres.txt"), at=at("2026-03-03T06:00"))
    assert (snap.allocatable_gpus, snap.healthy_gpus) == (24, 16)
    with pytest.raises(ObservedInputError, match=r"g.txt, line 2, field GRES"):
        read_sinfo("g.txt", "NODELIST STATE\ngpu001 idle\n", at=at("2026-03-03T06:00"))


def test_result_file_rows_and_their_errors() -> None:
    results = read_results("r.csv", _read("results.csv"))
    assert len(results.rows) == 406
    first = results.rows[0]
    assert (first.job, first.step, first.tokens, first.accepted) == (
        "job-pretrain-a-7f3c2", 1, 4194304, True,
    )  # fmt: skip
    with pytest.raises(ObservedInputError, match=r"r.csv, line 1, field step: column missing"):
        read_results("r.csv", "time,loss\n2026-03-02T00:00:00Z,1.0\n")
    with pytest.raises(ObservedInputError, match=r"r.csv, line 3, field accepted: 'maybe'"):
        read_results("r.csv", "time,step,accepted\n2026-03-02T00:00:00Z,1,true\n"
                              "2026-03-02T00:01:00Z,2,maybe\n")  # fmt: skip
