"""Exporting an organisation's data: asked for by one of its administrators (audited each time),
built by a worker into one zip kept on the job row, retried when it failed."""

from __future__ import annotations

import hashlib
import tempfile
from typing import Any

from django.core.exceptions import PermissionDenied
from django.core.files import File
from django.db import transaction
from django.utils import timezone

from audit.members import record_org_action
from core.errors import Conflict
from core.queueing import send_task
from ops.export_archive import CHUNK, write_archive
from ops.export_collect import collect
from ops.jobs import export_jobs_reap
from ops.models import ExportJob, ExportStatus
from orgs.models import Organization
from orgs.selectors import is_member_admin

EXPORT_ACTION = "org.export"


def export_refusal(org: Organization) -> str:
    return f"Only an administrator of {org.name} can export its data."


def export_request(*, org: Organization, user: Any) -> ExportJob:
    """Queue an export of `org` for one of its administrators; one already under way is
    returned instead of a second."""
    if not is_member_admin(org=org, user=user):
        raise PermissionDenied(export_refusal(org))
    export_jobs_reap(timezone.now())  # a stuck export is failed, so this one starts afresh
    with transaction.atomic():
        running = ExportJob.objects.filter(
            organization=org, status__in=[ExportStatus.QUEUED, ExportStatus.RUNNING]
        ).first()
        if running is not None:
            return running
        job = ExportJob.objects.create(organization=org, created_by=user)
        record_org_action(
            organization=org, user=user, action=EXPORT_ACTION, after={"export": job.pk}
        )
    _queue(job)
    return job


def export_retry(*, job: ExportJob, user: Any) -> ExportJob:
    if not is_member_admin(org=job.organization, user=user):
        raise PermissionDenied(export_refusal(job.organization))
    if job.status != ExportStatus.FAILED:
        raise Conflict("Only a failed export can be retried.")
    with transaction.atomic():
        ExportJob.objects.filter(pk=job.pk).update(
            status=ExportStatus.QUEUED, error="", created_by=user, finished_at=None
        )
        record_org_action(
            organization=job.organization,
            user=user,
            action=EXPORT_ACTION,
            after={"export": job.pk, "retry": True},
        )
    job.refresh_from_db()
    _queue(job)
    return job


def _queue(job: ExportJob) -> None:
    from ops.tasks import build_export

    ExportJob.objects.filter(pk=job.pk).update(queued_at=timezone.now())
    transaction.on_commit(
        lambda: send_task(build_export, job.pk, what=f"Export #{job.pk} of your data")
    )


def export_build(*, job_id: int) -> ExportJob:
    """The task's body. Safe to run twice: a finished job is left as it is, and a re-run after
    a lost worker writes the whole archive again."""
    job = ExportJob.objects.select_related("organization").get(pk=job_id)
    if job.status == ExportStatus.DONE:
        return job
    ExportJob.objects.filter(pk=job.pk).update(
        status=ExportStatus.RUNNING, started_at=timezone.now(), attempts=job.attempts + 1
    )
    try:
        with tempfile.TemporaryFile() as handle:
            write_archive(collect(org=job.organization), org=job.organization, handle=handle)
            size, digest = _measure(handle)
            if job.file:
                job.file.delete(save=False)  # an earlier attempt's archive
            name = f"{job.organization.slug}-export-{job.pk}.zip"
            job.file.save(name, File(handle, name=name), save=False)
    except Exception as exc:
        ExportJob.objects.filter(pk=job.pk).update(
            status=ExportStatus.FAILED, error=str(exc)[:2000], finished_at=timezone.now()
        )
        raise
    ExportJob.objects.filter(pk=job.pk).update(
        status=ExportStatus.DONE,
        file=job.file.name,
        size=size,
        sha256=digest,
        error="",
        finished_at=timezone.now(),
    )
    job.refresh_from_db()
    return job


def _measure(handle: Any) -> tuple[int, str]:
    handle.seek(0)
    digest = hashlib.sha256()
    size = 0
    while chunk := handle.read(CHUNK):
        digest.update(chunk)
        size += len(chunk)
    handle.seek(0)
    return size, digest.hexdigest()
