"""Generate annexes: queue a job, render it once, issue an immutable version."""

from __future__ import annotations

import hashlib
import io
from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Max, Q, QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone
from pypdf import PdfReader

from acceptance.models import Reservation
from annexes.audit import record_annex
from annexes.document.present import document_for
from annexes.document.render import render_html, render_pdf, snapshot_sha256
from annexes.document.snapshot import snapshot_for
from annexes.models import Annex, AnnexJob, AnnexJobStatus, AnnexKind
from bids.models import CapacityRequest
from core.jobs import STUCK_REASON, limit_words, queued_cutoff, running_cutoff
from core.queueing import send_task


def annex_snapshot(
    *,
    capacity_request: CapacityRequest,
    kind: str,
    period: str = "",
    reservation: Reservation | None = None,
) -> dict:
    try:
        return snapshot_for(
            capacity_request=capacity_request, kind=kind, period=period, reservation=reservation
        )
    except ValueError as exc:
        raise ValidationError(str(exc)) from exc


@transaction.atomic
def annex_request(
    *,
    capacity_request: CapacityRequest,
    kind: str,
    user: User | None,
    period: str = "",
    reservation: Reservation | None = None,
) -> AnnexJob:
    """Queue a render. Refused up front when there is nothing to render yet. `period` names a
    monthly statement's month ("2027-01"), or an outcome report's (empty: the term to date);
    `reservation`, a split award's reservation whose contract annex, statement or report it is."""
    if kind not in AnnexKind.values:
        raise ValidationError(f"Unknown annex kind {kind!r}.")
    if (kind == AnnexKind.STATEMENT and not period) or (
        period and kind not in (AnnexKind.STATEMENT, AnnexKind.OUTCOME)
    ):
        raise ValidationError(
            {"period": ["A monthly statement names its month; an outcome report may; no other."]}
        )
    if reservation is not None and reservation.request_id != capacity_request.pk:
        raise ValidationError({"reservation": ["That reservation belongs to another request."]})
    annex_snapshot(
        capacity_request=capacity_request, kind=kind, period=period, reservation=reservation
    )  # fail now, not in the worker
    annex_jobs_reap(timezone.now())  # a stuck render is failed, so this request starts afresh
    running = AnnexJob.objects.filter(
        request=capacity_request,
        reservation=reservation,
        kind=kind,
        period=period,
        status__in=[AnnexJobStatus.QUEUED, AnnexJobStatus.RENDERING],
    ).first()
    if running is not None:
        return running
    job = AnnexJob.objects.create(
        request=capacity_request,
        reservation=reservation,
        kind=kind,
        period=period,
        requested_by=user,
    )
    record_annex(job=job, action="annex.request", user=user, after={})
    _queue(job)
    return job


@transaction.atomic
def annex_retry(*, job: AnnexJob, user: User | None) -> AnnexJob:
    if job.status != AnnexJobStatus.FAILED:
        raise ValidationError("Only a failed render can be retried.")
    AnnexJob.objects.filter(pk=job.pk).update(status=AnnexJobStatus.QUEUED, error="")
    job.refresh_from_db()
    record_annex(job=job, action="annex.retry", user=user, after={})
    _queue(job)
    return job


def _queue(job: AnnexJob) -> None:
    from annexes.tasks import render_annex

    AnnexJob.objects.filter(pk=job.pk).update(queued_at=timezone.now())
    transaction.on_commit(lambda: send_task(render_annex, job.pk, what=f"Annex render #{job.pk}"))


def pdf_page_count(pdf: bytes) -> int:
    return len(PdfReader(io.BytesIO(pdf)).pages)


def annex_render_job(*, job_id: int) -> AnnexJob:
    """The task's body. Safe to run twice: a job issues at most one version.

    Rendering happens outside any transaction; the version is issued in one short transaction,
    so a worker killed mid-render leaves nothing half-written and a re-run completes the job.
    """
    job = AnnexJob.objects.select_related("request__buyer", "reservation").get(pk=job_id)
    if job.status == AnnexJobStatus.DONE:
        return job
    AnnexJob.objects.filter(pk=job.pk).update(
        status=AnnexJobStatus.RENDERING, started_at=timezone.now(), attempts=job.attempts + 1
    )
    try:
        snapshot = annex_snapshot(
            capacity_request=job.request,
            kind=job.kind,
            period=job.period,
            reservation=job.reservation,
        )
        digest = snapshot_sha256(snapshot)
        for _ in range(3):  # another job may take the version number while this one renders
            latest = _issued(job).first()
            if latest is not None and latest.snapshot_sha256 == digest:
                return _finish(job, latest, reused=True)
            version = (latest.version if latest else 0) + 1
            pdf = render_pdf(render_html(document_for(snapshot, sha256=digest, version=version)))
            issued = _issue(job, snapshot=snapshot, digest=digest, pdf=pdf, version=version)
            if issued is not None:
                return issued
        raise RuntimeError("Could not take a version number; try again.")
    except Exception as exc:
        AnnexJob.objects.filter(pk=job.pk).update(
            status=AnnexJobStatus.FAILED, error=str(exc)[:2000], finished_at=timezone.now()
        )
        raise


def _issued(job: AnnexJob) -> QuerySet[Annex]:
    """The versions issued of the job's document: its request (or reservation), kind and month."""
    return Annex.objects.filter(
        request_id=job.request_id,
        reservation=job.reservation_id,
        kind=job.kind,
        period=job.period,
    )


@transaction.atomic
def _issue(
    job: AnnexJob, *, snapshot: dict, digest: str, pdf: bytes, version: int
) -> AnnexJob | None:
    # Lock the request row: two jobs for one request must not take the same version number.
    CapacityRequest.objects.select_for_update().get(pk=job.request_id)
    job = AnnexJob.objects.select_for_update().get(pk=job.pk)
    if job.status == AnnexJobStatus.DONE:
        return job  # a duplicate delivery finished first
    same = _issued(job).filter(snapshot_sha256=digest).first()
    if same is not None:
        return _finish(job, same, reused=True)
    top = _issued(job).aggregate(v=Max("version"))
    if (top["v"] or 0) + 1 != version:
        return None  # the PDF names the version in its header: render again
    annex = Annex(
        request_id=job.request_id,
        reservation_id=job.reservation_id,
        kind=job.kind,
        period=job.period,
        version=version,
        snapshot=snapshot,
        snapshot_sha256=digest,
        pdf_sha256=hashlib.sha256(pdf).hexdigest(),
        pdf_bytes=len(pdf),
        pages=pdf_page_count(pdf),
        created_by=job.requested_by,
    )
    annex.pdf.save(annex.filename, ContentFile(pdf), save=False)
    annex.save()
    # Recorded as the one who asked for it: the worker renders on their behalf.
    record_annex(
        job=job,
        action="annex.issue",
        user=job.requested_by,
        after={"version": version, "pdf_sha256": annex.pdf_sha256},
    )
    return _finish(job, annex, reused=False)


def _finish(job: AnnexJob, annex: Annex, *, reused: bool) -> AnnexJob:
    AnnexJob.objects.filter(pk=job.pk).update(
        status=AnnexJobStatus.DONE, annex=annex, reused=reused, finished_at=timezone.now(), error=""
    )
    job.refresh_from_db()
    return job


def annex_jobs_reap(now: datetime) -> int:
    """Fail renders that ran past the time limit or were never picked up (see core.jobs)."""
    limit = settings.JOB_TIME_LIMIT_SECONDS
    stuck = Q(status=AnnexJobStatus.RENDERING, started_at__lt=running_cutoff(now)) | Q(
        status=AnnexJobStatus.QUEUED, since__lt=queued_cutoff(now)
    )
    since = Coalesce("queued_at", "requested_at")
    return (
        AnnexJob.objects.alias(since=since)
        .filter(stuck)
        .update(
            status=AnnexJobStatus.FAILED,
            error=STUCK_REASON.format(limit=limit_words(limit)),
            finished_at=now,
        )
    )
