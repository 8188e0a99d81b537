"""The worked example of docs/observed-outcomes.md: every number the document works by hand."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from engine.formatting import fixed
from engine.observed.cost import cost_per_result, count_results
from engine.observed.envelope import Envelope
from engine.observed.kueue import read_kueue
from engine.observed.nodes import read_kube_nodes
from engine.observed.outcome import Observed, observe
from engine.observed.results import read_results

DATA = Path(__file__).resolve().parents[2] / "data" / "observed"
ENVELOPE = Envelope(
    start_p50_minutes=10, start_p95_minutes=30, idle_capacity_lent=True, preemptible=True,
    reclaim_notice_minutes=10, reclaim_effect="checkpoint_requeue", health_check_minutes=60,
)  # fmt: skip


def _observed() -> Observed:
    kueue = read_kueue("kueue.json", (DATA / "kueue-workloads-events.json").read_text())
    snapshots = [read_kube_nodes(p.name, p.read_text()) for p in sorted(DATA.glob("nodes-*.json"))]
    return observe(
        start=datetime(2026, 3, 2, tzinfo=UTC), end=datetime(2026, 3, 4, tzinfo=UTC),
        contracted_gpus=16, envelope=ENVELOPE, scheduler=[kueue], snapshots=snapshots,
    )  # fmt: skip


def test_four_capacities_per_day() -> None:
    days = _observed().days
    assert [
        (str(d.day), fixed(d.contracted), fixed(d.allocatable), fixed(d.healthy), fixed(d.in_use))
        for d in days
    ] == [
        ("2026-03-02", "16.00", "16.00", "12.00", "13.53"),
        ("2026-03-03", "16.00", "14.00", "14.00", "4.00"),
    ]
    assert [d.in_use_gpu_hours for d in days] == [Decimal("324.8"), Decimal(96)]


def test_start_receipts_against_the_promised_p95() -> None:
    receipts = _observed().receipts
    assert [
        (r.job, r.queued_minutes, r.to_running_minutes, r.within_p95) for r in receipts.rows
    ] == [
        ("job-pretrain-a-7f3c2", 4, 10, True),
        ("job-pretrain-b-9d1e4", 40, 45, False),
        ("job-eval-c-1a2b3", 2, 5, True),
    ]
    assert (receipts.observed_p50, receipts.observed_p95) == (10, 45)


def test_the_reclaim_is_within_the_terms() -> None:
    (check,) = _observed().reclaims
    assert (check.reclaim.job, check.back_minutes, check.misses) == ("job-pretrain-a-7f3c2", 24, ())


def test_each_missed_promise_has_its_packet() -> None:
    misses = _observed().misses
    assert [(m.promise, m.observed) for m in misses] == [
        ("Time to running (p95)", "45.00 min for job-pretrain-b-9d1e4"),
        ("Health-check cadence", "gpu-node-b failing its checks and allocatable for 720.00 min"),
        ("Contracted capacity allocatable", "14.00 GPUs on average on 2026-03-03"),
    ]
    late = misses[0]
    assert late.nodes == ("gpu-node-b",)
    assert [(r.what, r.subject) for r in late.records][:3] == [
        ("CreatedWorkload", "pretrain-b"), ("Pending", "job-pretrain-b-9d1e4"),
        ("QuotaReserved", "job-pretrain-b-9d1e4"),
    ]  # fmt: skip
    health = misses[1]
    assert health.node_states[0][1].why == "GpuUnhealthy (XidCriticalError)"


def test_cost_per_accepted_step_as_worked_by_hand() -> None:
    observed = _observed()
    kueue = read_kueue("kueue.json", (DATA / "kueue-workloads-events.json").read_text())
    results = read_results("results.csv", (DATA / "results.csv").read_text())
    count = count_results("step", results=results, jobs=kueue.jobs)
    assert (count.accepted, count.replayed, count.rejected) == (391, 10, 5)
    cost = cost_per_result(
        unit="step", count=count, paid=Decimal("1824.00"), useful_gpu_hours=Decimal("720.00"),
        in_use_gpu_hours=sum((d.in_use_gpu_hours for d in observed.days), Decimal(0)),
        predicted_per_useful_gpu_hour=Decimal("2.60"), expected_per_gpu_hour=Decimal("1.25"),
    )  # fmt: skip
    assert cost.cost == Decimal("4.6650")
    assert cost.working == "$1,824.00 paid after credits ÷ 391 accepted training steps = $4.6650"
    assert cost.predicted == Decimal("2.0800")
    assert cost.reasons == (
        "Price: $2.5333 paid per useful GPU-hour against $2.6000 predicted.",
        "Use: the jobs ran on 420.80 of the 720.00 useful GPU-hours (58.44 %); the rest was paid "
        "for and idle, queued or reclaimed.",
        "Yield: 0.9292 accepted training steps per GPU-hour the jobs ran, against 1.25 expected.",
        "Lost work: 10 steps replayed after restarts and 5 rejected, paid for without an "
        "accepted result.",
    )


def test_completed_runs_and_trained_tokens_are_results_too() -> None:
    kueue = read_kueue("kueue.json", (DATA / "kueue-workloads-events.json").read_text())
    results = read_results("results.csv", (DATA / "results.csv").read_text())
    assert count_results("run", results=None, jobs=kueue.jobs).accepted == 3
    assert count_results("token", results=results, jobs=kueue.jobs).accepted == 391 * 4194304


def test_without_an_expected_rate_or_a_predicted_cost_the_page_says_which_is_missing() -> None:
    count = count_results("run", results=None, jobs=())
    args = {"unit": "run", "count": count, "paid": Decimal(100), "useful_gpu_hours": None,
            "in_use_gpu_hours": Decimal(0)}  # fmt: skip
    no_rate = cost_per_result(**args, predicted_per_useful_gpu_hour=Decimal(2),
                              expected_per_gpu_hour=None)  # fmt: skip
    assert no_rate.predicted_working == "no prediction: the buyer named no expected rate"
    assert no_rate.cost is None and no_rate.working == "no completed run yet"
    no_award = cost_per_result(**args, predicted_per_useful_gpu_hour=None,
                               expected_per_gpu_hour=Decimal(1))  # fmt: skip
    assert no_award.predicted_working.endswith(
        "the award has no predicted cost per useful GPU-hour"
    )
