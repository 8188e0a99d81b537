"""Heavy work waits on its own queue: one provider's batch of failed runs or re-checks never
holds up another tenant's annex or scoring."""

from __future__ import annotations

from config.celery import HEAVY_TASKS, app, heavy_queue


def _queue(task: str) -> str:
    return app.amqp.router.route({}, task)["queue"].name


def test_failed_run_analysis_and_rechecks_go_to_the_heavy_queue():
    default = app.conf.task_default_queue
    assert {_queue(t) for t in HEAVY_TASKS} == {heavy_queue(default)}
    for interactive in (
        "annexes.tasks.render_annex",
        "acceptance.tasks.parse_evidence",
        "evaluation.tasks.score_request",
    ):
        assert _queue(interactive) == default


def test_a_worker_started_without_queues_consumes_both():
    names = {q.name for q in app.conf.task_queues}
    assert names == {app.conf.task_default_queue, heavy_queue(app.conf.task_default_queue)}
