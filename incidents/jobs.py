"""Failed-run analyses that never stay "analysing" (registered with core.jobs)."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Q, QuerySet
from django.db.models.functions import Coalesce

from acceptance.models import Reservation
from core.errors import TooBusy
from core.jobs import NEVER_STARTED, STUCK_REASON, limit_words, queued_cutoff, running_cutoff
from incidents.models import FailedRun, FailedRunState
from orgs.models import Organization


def failed_runs_reap(now: datetime) -> int:
    limit = settings.ANALYSIS_TIME_LIMIT_SECONDS
    running = FailedRun.objects.filter(
        Q(analysis_started_at__lt=running_cutoff(now, limit_seconds=limit))
        | Q(
            analysis_started_at__isnull=True,
            uploaded_at__lt=running_cutoff(now, limit_seconds=limit),
        ),
        state=FailedRunState.ANALYSING,
    ).update(state=FailedRunState.ERROR, error=STUCK_REASON.format(limit=limit_words(limit)))
    queued = (
        FailedRun.objects.alias(since=Coalesce("queued_at", "uploaded_at"))
        .filter(state=FailedRunState.QUEUED, since__lt=queued_cutoff(now))
        .update(
            state=FailedRunState.ERROR,
            error=NEVER_STARTED.format(
                limit=limit_words(settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"])
            ),
        )
    )
    return running + queued


IN_FLIGHT = (FailedRunState.QUEUED, FailedRunState.ANALYSING)
PENDING = (FailedRunState.WAITING, *IN_FLIGHT)


def _runs_for(org_id: int) -> QuerySet[FailedRun]:
    """Failed runs a member of this organisation uploaded to one of its reservations."""
    return FailedRun.objects.filter(
        Q(reservation__request__buyer_id=org_id) | Q(reservation__bid__provider_id=org_id),
        uploaded_by__memberships__organization_id=org_id,
    )


def uploading_orgs(*, reservation: Reservation, user: User | None) -> list[int]:
    """The organisations an upload counts against: the uploader's among the reservation's
    parties, locked (in id order) so that two uploads at once take turns."""
    if user is None:
        return []
    parties = {reservation.request.buyer_id, reservation.bid.provider_id}
    mine = sorted(m.organization_id for m in user.memberships.all() if m.organization_id in parties)
    list(Organization.objects.select_for_update().filter(pk__in=mine).order_by("pk"))
    return mine


def admit_analysis(*, reservation: Reservation, user: User) -> str:
    """The state a new analysis starts in. The heavy queue runs one analysis per organisation
    at a time (HEAVY_IN_FLIGHT_PER_ORG) so that one tenant's batch never holds up everyone's:
    the rest wait, and past HEAVY_JOBS_PER_ORG stored the next is refused (429 in the API).
    Call inside the upload's transaction."""
    mine = uploading_orgs(reservation=reservation, user=user)
    limit = settings.HEAVY_JOBS_PER_ORG
    for org_id in mine:
        busy = _runs_for(org_id).filter(state__in=PENDING).distinct().count()
        if busy >= limit:
            raise TooBusy(
                f"Your organisation already has {busy} failed-run analyses waiting, queued or "
                f"running (the limit is {limit}, so that one organisation cannot hold up "
                "everyone's). Upload this one when one of them has finished; nothing was stored."
            )
    return FailedRunState.WAITING if _any_full(mine) else FailedRunState.QUEUED


def _any_full(org_ids: list[int]) -> bool:
    limit = settings.HEAVY_IN_FLIGHT_PER_ORG
    return any(
        _runs_for(org_id).filter(state__in=IN_FLIGHT).distinct().count() >= limit
        for org_id in org_ids
    )


def may_start(*, run: FailedRun) -> bool:
    """Whether a waiting run's organisations have room now. Call inside a transaction."""
    if run.uploaded_by is None:
        return True
    return not _any_full(uploading_orgs(reservation=run.reservation, user=run.uploaded_by))
