"""Every background job ends, under real faults: a worker killed with SIGKILL in the middle of a
job, and a Redis (broker and cache) stopped and started again. Real `celery worker`
subprocesses on this test's PostgreSQL database and a `redis-server` of the test's own on a free
port, so stopping it harms nobody else.

A job has ended when it is done, or failed with its Retry working: never left queued, running or
analysing with nobody to move it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.db.models import DateTimeField, F
from django.urls import reverse
from django.utils import timezone

from acceptance.models import BurnInRun, ChecksState, Evidence, EvidenceState
from acceptance.services import burnin
from annexes.models import AnnexJob, AnnexJobStatus, AnnexKind
from annexes.services import annex_request, annex_retry
from bids.models import CapacityRequest
from bids.services import bid_submit
from billing import services as billing
from billing.models import UsageState, UsageUpload
from config.celery import app as celery_app
from core.jobs import reap_stuck_jobs
from core.models import WaitingTask
from core.queueing import send_waiting
from engine.billing import Mapping
from evaluation.models import ScoringRun, ScoringStatus
from evaluation.services import scoring_queue
from incidents import services as incidents
from incidents.models import FailedRun, FailedRunState
from ops.models import ExportJob, ExportStatus
from ops.services import export_request, export_retry
from tests.acceptance.burnin.helpers import GOOD_SET, award, file_upload
from tests.api.v1.conftest import token_client
from tests.billing.conftest import contracted, usage_file
from tests.conftest import World
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory
from tests.fault_fixtures import private_redis, workers
from tests.incidents.helpers import media_root, scenario_upload
from tests.worker_fixtures import (
    stop_worker_process,
    wait_for,
)

__all__ = ["contracted", "media_root", "private_redis", "workers"]


# Per job kind: its model, its state field, and the states in which it has ended.
KINDS: dict[str, tuple[Any, str, set[str]]] = {
    "annex render": (AnnexJob, "status", {AnnexJobStatus.DONE, AnnexJobStatus.FAILED}),
    "failed-run analysis": (
        FailedRun,
        "state",
        {FailedRunState.ANALYSED, FailedRunState.UNREADABLE, FailedRunState.ERROR},
    ),
    "evidence parse": (
        Evidence,
        "state",
        {EvidenceState.PARSED, EvidenceState.UNREADABLE, EvidenceState.ERROR},
    ),
    # "Waiting for evidence" waits for a person, not for a worker.
    "burn-in re-check": (
        BurnInRun,
        "checks_state",
        {ChecksState.DONE, ChecksState.ERROR, ChecksState.WAITING},
    ),
    "bill reconciliation": (UsageUpload, "state", {UsageState.DONE, UsageState.ERROR}),
    "scoring": (ScoringRun, "status", {ScoringStatus.DONE, ScoringStatus.FAILED}),
    "export": (ExportJob, "status", {ExportStatus.DONE, ExportStatus.FAILED}),
}
FAILED = {
    "annex render": AnnexJobStatus.FAILED,
    "failed-run analysis": FailedRunState.ERROR,
    "evidence parse": EvidenceState.ERROR,
    "burn-in re-check": ChecksState.ERROR,
    "bill reconciliation": UsageState.ERROR,
    "scoring": ScoringStatus.FAILED,
    "export": ExportStatus.FAILED,
}


def states() -> dict[tuple[str, int], str]:
    out = {}
    for kind, (model, field, _) in KINDS.items():
        for pk, state in model.objects.values_list("pk", field):
            out[(kind, pk)] = state
    return out


def unfinished() -> dict[tuple[str, int], str]:
    return {key: s for key, s in states().items() if s not in KINDS[key[0]][2]}


def failed() -> dict[tuple[str, int], str]:
    return {key: s for key, s in states().items() if s == FAILED[key[0]]}


def hour_passes(delta: timedelta) -> None:
    """Move every job's recorded times back by `delta`, as if that much time had passed."""
    for model, _, _ in KINDS.values():
        times = [f.name for f in model._meta.concrete_fields if isinstance(f, DateTimeField)]
        model.objects.update(**{name: F(name) - delta - timedelta(minutes=2) for name in times})


def retry(kind: str, pk: int, user: Any) -> None:
    """Press Retry, as the job's page offers it on a failed job."""
    retries: dict[str, Callable[[], object]] = {
        "annex render": lambda: annex_retry(job=AnnexJob.objects.get(pk=pk), user=user),
        "failed-run analysis": lambda: incidents.failed_run_retry(
            failed_run=FailedRun.objects.get(pk=pk), user=user
        ),
        "evidence parse": lambda: burnin.evidence_retry(
            evidence=Evidence.objects.get(pk=pk), user=user
        ),
        "burn-in re-check": lambda: burnin.run_request_recheck(
            run=BurnInRun.objects.get(pk=pk), user=user
        ),
        "bill reconciliation": lambda: billing.usage_retry(
            upload=UsageUpload.objects.get(pk=pk), user=user
        ),
        "scoring": lambda: scoring_queue(capacity_request=ScoringRun.objects.get(pk=pk).request),
        "export": lambda: export_retry(job=ExportJob.objects.get(pk=pk), user=user),
    }
    retries[kind]()


def second_award(buyer: Any, provider: Any, rival_provider: Any) -> Any:
    """Another request, awarded and not yet accepted: burn-in evidence goes to its run."""
    req = CapacityRequestFactory(buyer=buyer.org, sealed=False)
    InvitationFactory(request=req, provider=provider.org)
    InvitationFactory(request=req, provider=rival_provider.org)
    bid = BidFactory(request=req, provider=provider.org)
    rival_bid = BidFactory(request=req, provider=rival_provider.org, price_per_gpu_hour="2.9")
    bid_submit(bid=bid, user=provider.user)
    bid_submit(bid=rival_bid, user=rival_provider.user)
    return award(World(request=req, bid=bid, rival_bid=rival_bid), buyer)


def open_request(buyer: Any, provider: Any) -> CapacityRequest:
    """A request whose bid is submitted now: its scoring is queued."""
    req = CapacityRequestFactory(buyer=buyer.org, sealed=False)
    InvitationFactory(request=req, provider=provider.org)
    bid_submit(bid=BidFactory(request=req, provider=provider.org), user=provider.user)
    return req


def mapped_bill(reservation: Any, user: Any) -> UsageUpload:
    """A bill read for its mapping (in-process: the workers are not started yet)."""
    row = billing.usage_upload(
        reservation=reservation, user=user, upload=usage_file("usage_planted.csv")
    )
    row.refresh_from_db()
    assert row.state == UsageState.MAPPING, row.error
    return row


def lock_request(pk: int) -> psycopg.Connection[Any]:
    """Hold the request's row lock from another session: a render that reaches its issue step
    waits there, "rendering", until the lock goes: a job caught running, every time."""
    db = django_settings.DATABASES["default"]
    side = psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=int(db["PORT"] or 5432),
        user=db["USER"],
        password=db["PASSWORD"],
        dbname=db["NAME"],
    )
    table = CapacityRequest._meta.db_table
    side.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR UPDATE", [pk])
    return side


def someone_waits_on_a_lock(side_pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND pid <> %s",
            [side_pid],
        )
        (count,) = cursor.fetchone()
    return bool(count)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_every_job_ends_after_its_worker_is_killed_and_after_redis_goes_away(
    contracted, buyer, provider, rival_provider, workers, private_redis
):
    reservation = contracted.reservation
    request = reservation.request
    # Read for its mapping while tasks still ran in-process; from here on tasks go to Redis.
    celery_app.conf.task_always_eager = True
    bill = mapped_bill(reservation, provider.user)
    awarded = second_award(buyer, provider, rival_provider)
    celery_app.conf.task_always_eager = False

    # One job of every kind, queued while no worker runs.
    annex = annex_request(capacity_request=request, kind=AnnexKind.CONTRACT, user=buyer.user)
    run = incidents.failed_run_upload(
        reservation=reservation, user=provider.user, uploads=[scenario_upload()]
    )
    name, node = GOOD_SET[0]
    evidence = burnin.evidence_upload(
        run=awarded.run, user=provider.user, upload=file_upload(name), node=node
    ).evidence
    guess = Mapping.from_json(bill.mapping)
    billing.usage_map(
        upload=bill,
        user=provider.user,
        columns=guess.columns,
        unit=guess.unit,
        date_format=guess.date_format,
    )
    scoring = ScoringRun.objects.get(request=open_request(buyer, provider))
    export = export_request(org=provider.org, user=provider.user)
    queued = unfinished()
    assert {kind for kind, _ in queued} == set(KINDS), queued
    assert not WaitingTask.objects.exists()

    # The first worker takes jobs until one is caught mid-run; then it is killed outright.
    side = lock_request(request.pk)
    first = workers.start()
    side_pid = side.info.backend_pid
    assert wait_for(lambda: someone_waits_on_a_lock(side_pid), seconds=120), workers.tail()
    # The render waits on the lock: a burn-in run reads "running" from its upload on, so only
    # the render is known to be in the worker's hands.
    caught = {("annex render", annex.pk)}
    assert states()[("annex render", annex.pk)] == AnnexJobStatus.RENDERING, states()
    workers.kill(first)
    side.close()

    # A new worker takes what was still queued; nobody else moves the killed job.
    second = workers.start()
    assert wait_for(lambda: set(unfinished()) == caught, seconds=180), (
        unfinished(),
        workers.tail(),
    )
    stop_worker_process(second)
    workers.running.remove(second)

    # An hour passes (every job's times move back past every time limit and the broker's
    # visibility timeout) and the reaper runs, as beat runs it every few minutes. It fails
    # the killed job, and Retry is offered.
    hour_passes(
        timedelta(seconds=django_settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"])
    )
    reaped = reap_stuck_jobs()
    assert reaped["annex renders"] == 1 and sum(reaped.values()) == 1, reaped
    assert set(failed()) == caught and not unfinished(), states()
    for kind, pk in sorted(caught):
        retry(kind, pk, buyer.user if kind == "annex render" else provider.user)
    # Retried, it waits for a worker as long as a new job would: the reaper's next tick does
    # not take it for one lost an hour ago.
    assert reap_stuck_jobs()["annex renders"] == 0
    assert set(unfinished()) == caught
    workers.start()
    assert wait_for(lambda: not unfinished(), seconds=180), (unfinished(), workers.tail())
    assert not failed(), (failed(), workers.tail())
    assert {(k, pk) for (k, pk) in states()} >= {
        ("failed-run analysis", run.pk),
        ("evidence parse", evidence.pk),
        ("bill reconciliation", bill.pk),
        ("scoring", scoring.pk),
        ("export", export.pk),
    }

    # Redis goes away. The API refuses writes with a 503 in JSON; a page stores the work,
    # says in words that it waits, and the stored row waits to be queued.
    private_redis.stop()
    api = token_client(buyer.user)
    answer = api.post(
        f"/api/v1/requests/{request.pk}/annexes/", {"kind": AnnexKind.CONTRACT}, format="json"
    )
    assert answer.status_code == 503, answer.content
    assert answer["Content-Type"].startswith("application/json") and answer["Retry-After"]
    assert answer.json()["detail"]
    read = api.get(f"/api/v1/requests/{request.pk}/annexes/")
    assert read.status_code == 200  # reads carry on without the rate limiter's store

    page = buyer.client().post(
        reverse("annexes:generate", args=[request.pk]), {"kind": AnnexKind.CONTRACT}
    )
    assert page.status_code == 503 and page["Retry-After"]
    words = page.content.decode()
    assert "could not be reached" in words and "starts by itself" in words
    upload = provider.client().post(
        reverse("incidents:failed-run-upload", args=[reservation.pk]),
        {"bundle": scenario_upload("second.tar.gz"), "label": "During the outage"},
    )
    assert upload.status_code == 503, upload.content.decode()[:2000]
    assert "could not be reached" in upload.content.decode()
    stored = unfinished()
    kinds_waiting = sorted(kind for kind, _ in stored)
    assert kinds_waiting == ["annex render", "failed-run analysis"], stored
    assert WaitingTask.objects.count() == 2

    # Redis comes back (empty): the sweep beat runs sends what waited, and each job ends.
    private_redis.start()
    assert wait_for(lambda: send_waiting() >= 0 and not WaitingTask.objects.exists(), 60)
    assert wait_for(lambda: not unfinished(), seconds=180), (unfinished(), workers.tail())
    assert not failed(), (failed(), workers.tail())
    again = api.post(
        f"/api/v1/requests/{request.pk}/annexes/",
        {"kind": AnnexKind.STATEMENT, "period": "2026-03"},
        format="json",
    )
    assert again.status_code == 202, again.content
    assert wait_for(lambda: not unfinished(), seconds=120), (unfinished(), workers.tail())


RUNNING: dict[str, tuple[str, str]] = {
    # How a worker lost mid-job leaves each kind: its state, and the time it started.
    "annex render": (AnnexJobStatus.RENDERING, "started_at"),
    "failed-run analysis": (FailedRunState.ANALYSING, "analysis_started_at"),
    "evidence parse": (EvidenceState.PARSING, "state_changed_at"),
    "burn-in re-check": (ChecksState.RUNNING, "checks_started_at"),
    "bill reconciliation": (UsageState.RUNNING, "started_at"),
    "scoring": (ScoringStatus.RUNNING, "started_at"),
    "export": (ExportStatus.RUNNING, "started_at"),
}


def requeued() -> set[tuple[str, int]]:
    """Burn-in runs whose evidence the reaper failed: a failed parse changes what the checks
    see, so the run's re-check is queued again, just now."""
    fresh = timezone.now() - timedelta(minutes=1)
    runs = BurnInRun.objects.filter(checks_state=ChecksState.RUNNING, recheck_queued_at__gt=fresh)
    return {("burn-in re-check", pk) for pk in runs.values_list("pk", flat=True)}


@pytest.mark.django_db
def test_every_kind_of_job_lost_running_or_never_delivered_is_failed_and_retried(
    contracted, buyer, provider, rival_provider, django_capture_on_commit_callbacks
):
    """Each job kind, as a lost worker leaves it ("running" since long ago) and as a lost
    message leaves it ("queued" since long ago), is failed by the reaper with Retry; a job
    retried just now is not taken for a lost one."""
    reservation = contracted.reservation
    with django_capture_on_commit_callbacks(execute=True):  # tasks run in-process
        bill = mapped_bill(reservation, provider.user)
        guess = Mapping.from_json(bill.mapping)
        billing.usage_map(
            upload=bill, user=provider.user, columns=guess.columns, unit=guess.unit,
            date_format=guess.date_format,
        )  # fmt: skip
        awarded = second_award(buyer, provider, rival_provider)
        name, node = GOOD_SET[0]
        burnin.evidence_upload(
            run=awarded.run, user=provider.user, upload=file_upload(name), node=node
        )
        annex_request(
            capacity_request=reservation.request, kind=AnnexKind.CONTRACT, user=buyer.user
        )
        incidents.failed_run_upload(
            reservation=reservation, user=provider.user, uploads=[scenario_upload()]
        )
        scored = open_request(buyer, provider)
        export_request(org=provider.org, user=provider.user)
    assert ScoringRun.objects.filter(request=scored).exists()
    handover = ("burn-in re-check", reservation.runs.get().pk)  # waits for no worker
    jobs = set(states()) - {handover}
    assert {kind for kind, _ in jobs} == set(KINDS)

    for kind, pk in jobs:
        model, field, _ = KINDS[kind]
        state, started = RUNNING[kind]
        model.objects.filter(pk=pk).update(**{field: state, started: timezone.now()})
    BurnInRun.objects.update(recheck_queued_at=None)  # each re-check had started
    assert not any(reap_stuck_jobs().values())  # all in time
    hour_passes(timedelta(hours=1))
    reaped = reap_stuck_jobs()
    assert reaped["burn-in parses and re-checks"] == 2, reaped  # the run, then its file
    assert set(failed()) | requeued() >= jobs, (states(), reaped)

    with_retry = set(failed()) & jobs
    for kind, pk in with_retry:
        retry(kind, pk, buyer.user if kind == "annex render" else provider.user)
    assert not set(failed()) & jobs, states()  # queued again (its task is not sent here)
    assert not any(reap_stuck_jobs().values()), states()
    hour_passes(timedelta(hours=1))
    reap_stuck_jobs()
    # Never picked up: failed, with Retry again.
    assert set(failed()) | requeued() >= jobs, states()
