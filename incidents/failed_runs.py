"""Failed-run uploads and their analysis: store every file first, analyse it in a child with a
memory cap, keep the result within its size. Keyword-only writes; the analysis itself is
`engine.failures`."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import IO, Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone

from acceptance.audit import record_on_reservation
from acceptance.models import Reservation, ReservationStatus
from core.errors import Conflict
from core.queueing import send_task
from engine import failures
from engine.failures.fit import fit_analysis
from engine.failures.isolated import AnalysisAborted, Job, analyse_isolated
from engine.failures.record import InputsSeen
from engine.formatting import data_size
from incidents.jobs import admit_analysis, may_start
from incidents.models import FailedRun, FailedRunFile, FailedRunState

RELEASE_BATCH = 500


def _streams(rows: list[FailedRunFile]) -> Iterator[tuple[IO[bytes], str]]:
    """Each stored file, opened one at a time, for `iter_uploads` (one budget per upload)."""
    for row in rows:
        with row.file.open("rb") as handle:
            yield handle, row.original_name


def require_accepted(reservation: Reservation) -> None:
    if reservation.status != ReservationStatus.ACCEPTED:
        raise Conflict(
            "Failed-run evidence belongs to an accepted reservation; this one is "
            f"{reservation.get_status_display().lower()}."
        )


def default_world_size(reservation: Reservation) -> int | None:
    try:
        return reservation.check_spec().world_size or None
    except (ValueError, TypeError, KeyError):
        return None


@transaction.atomic
def failed_run_upload(
    *,
    reservation: Reservation,
    user: User,
    uploads: list[UploadedFile],
    rank_map: UploadedFile | None = None,
    world_size: int | None = None,
    label: str = "",
) -> FailedRun:
    """Store every file with its SHA-256, then queue the analysis once this commits."""
    require_accepted(reservation)
    files = [(u, False) for u in uploads] + ([(rank_map, True)] if rank_map else [])
    if not uploads:
        raise ValidationError({"bundle": ["Choose an archive (.tar.gz/.zip) or the log files."]})
    total = sum(u.size or 0 for u, _ in files)
    limit = settings.FAILED_RUN_MAX_BYTES
    if total > limit:
        raise ValidationError(
            {"bundle": [f"{data_size(total)} is over the {data_size(limit)} limit."]}
        )
    empty = [(u.name or "unnamed", is_map) for u, is_map in files if not u.size]
    if empty:
        field = "rank_map" if all(is_map for _, is_map in empty) else "bundle"
        names = ", ".join(name for name, _ in empty)
        raise ValidationError(
            {field: [f"{names}: empty, and an empty file cannot be evidence. Nothing was stored."]}
        )
    if world_size is not None and (problem := failures.world_size_problem(world_size)):
        raise ValidationError({"world_size": [problem]})
    state = admit_analysis(reservation=reservation, user=user)
    count = FailedRun.objects.filter(reservation=reservation).count() + 1
    run = FailedRun.objects.create(
        reservation=reservation,
        label=(label.strip() or f"Failed run {count}")[:120],
        world_size=world_size or default_world_size(reservation),
        uploaded_by=user,
        state=state,
    )
    stored = []
    for upload, is_map in files:
        row = FailedRunFile(failed_run=run, is_rank_map=is_map)
        row.store(upload)  # the bytes are stored before anything reads them
        row.save()
        stored.append({"file": row.original_name, "sha256": row.sha256})
    record_on_reservation(
        reservation=reservation,
        action="failed_run.upload",
        user=user,
        after={"failed_run": run.pk, "label": run.label, "files": stored, "state": state},
    )
    if state == FailedRunState.QUEUED:
        _queue(run)
    return run


def _queue(run: FailedRun) -> None:
    from incidents.tasks import analyse_failed_run

    run_id = run.pk
    FailedRun.objects.filter(pk=run_id).update(queued_at=timezone.now())
    transaction.on_commit(
        lambda: send_task(analyse_failed_run, run_id, what=f"Failed run #{run_id}")
    )


def release_waiting(now: datetime | None = None) -> int:
    """Queue each waiting analysis, oldest first, whose organisations have none in flight.
    Runs when an analysis ends, and with the reaper (a worker lost mid-analysis is failed
    there, which frees its organisation's turn). How many were queued."""
    released = 0
    for pk in (
        FailedRun.objects.filter(state=FailedRunState.WAITING)
        .order_by("uploaded_at", "pk")[:RELEASE_BATCH]
        .values_list("pk", flat=True)
    ):
        with transaction.atomic():
            run = (
                FailedRun.objects.select_for_update(of=("self",))
                .select_related("reservation__request", "reservation__bid", "uploaded_by")
                .filter(pk=pk, state=FailedRunState.WAITING)
                .first()
            )
            if run is None or not may_start(run=run):
                continue
            FailedRun.objects.filter(pk=pk).update(state=FailedRunState.QUEUED)
            _queue(run)
            released += 1
    return released


def failed_run_analyse(*, failed_run_id: int) -> FailedRun:
    """Read the stored files and analyse them. Safe to run twice: an analysed run stays as is."""
    with transaction.atomic():
        run = FailedRun.objects.select_for_update().get(pk=failed_run_id)
        if run.state == FailedRunState.ANALYSED:
            return run
        run.state, run.attempts = FailedRunState.ANALYSING, run.attempts + 1
        run.analysis_started_at = timezone.now()
        run.save(update_fields=["state", "attempts", "analysis_started_at"])
    rows = list(run.files.order_by("pk"))
    try:
        result = fit_analysis(_analyse(run, rows), max_bytes=settings.ANALYSIS_MAX_BYTES)
    except failures.FailureInputError as exc:
        state, error, result = FailedRunState.UNREADABLE, str(exc), None
    except AnalysisAborted as exc:
        state, error, result = (
            FailedRunState.ERROR,
            f"{str(exc)[:1].upper()}{str(exc)[1:]}. Retry it, or split the upload.",
            None,
        )
    else:
        state, error = FailedRunState.ANALYSED, ""
    FailedRun.objects.filter(pk=run.pk).update(
        state=state, error=error, analysis=result, analysed_at=timezone.now()
    )
    run.refresh_from_db()
    release_waiting()
    return run


def _analyse(run: FailedRun, rows: list[FailedRunFile]) -> dict[str, Any]:
    """In a child process with a memory cap where the files lie on disk (the default);
    in-process otherwise (ANALYSIS_ISOLATED off, or a storage without local paths)."""
    maps = [r for r in rows if r.is_rank_map]
    logs = [r for r in rows if not r.is_rank_map]
    if settings.ANALYSIS_ISOLATED:
        job = Job(
            files=[(_location(r), r.original_name) for r in logs],
            rank_map=(_location(maps[0]), maps[0].original_name) if maps else None,
            world_size=run.world_size,
            memory_bytes=settings.ANALYSIS_MEMORY_BYTES,
            received=run.uploaded_at,
        )
        return analyse_isolated(job, seconds=settings.ANALYSIS_TIME_LIMIT_SECONDS - 60)
    rmap = None
    for row in maps:
        rmap = failures.parse_rank_map(row.read_bytes(), name=row.original_name)
    # Bundles stream member by member: a 16,384-rank upload is never whole in memory.
    seen = InputsSeen()
    sources = seen.watch(failures.iter_uploads(_streams(logs)))
    analysis = failures.analyse(
        sources, rank_map=rmap, world_size=run.world_size, received=run.uploaded_at
    )
    why = failures.unreadable_reason(analysis.refused, used=analysis.stats["used"])
    if why is not None:
        raise failures.FailureInputError(why)
    return {**analysis.to_json(), "inputs": seen.to_json()}


def _location(row: FailedRunFile) -> str:
    """Where the analysis child reads the file: its path on this host, or, in object storage,
    a presigned URL that expires after S3_URL_SECONDS (the child streams it)."""
    try:
        return str(row.file.path)
    except NotImplementedError:
        return str(row.file.url)


def failed_run_mark_error(*, failed_run_id: int, error: BaseException) -> None:
    FailedRun.objects.filter(pk=failed_run_id).update(
        state=FailedRunState.ERROR,
        error=f"The analysis crashed ({type(error).__name__}: {str(error)[:300]}). Retry it.",
    )
    release_waiting()


@transaction.atomic
def failed_run_retry(*, failed_run: FailedRun, user: User) -> FailedRun:
    if failed_run.state not in (FailedRunState.ERROR, FailedRunState.UNREADABLE):
        # A stuck analysis is failed by the reaper first, then offered again.
        raise Conflict("Only a failed or unreadable analysis can be retried.")
    before = {"state": failed_run.state, "error": failed_run.error}
    state = (
        FailedRunState.QUEUED
        if failed_run.uploaded_by is None
        else admit_analysis(reservation=failed_run.reservation, user=failed_run.uploaded_by)
    )
    FailedRun.objects.filter(pk=failed_run.pk).update(state=state, error="")
    failed_run.refresh_from_db()
    record_on_reservation(
        reservation=failed_run.reservation,
        action="failed_run.retry",
        user=user,
        before=before,
        after={"failed_run": failed_run.pk, "state": failed_run.state},
    )
    if state == FailedRunState.QUEUED:
        _queue(failed_run)
    return failed_run
