"""Failed-run analyses that never stay "analysing" (registered with core.jobs)."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Q

from acceptance.models import Reservation
from core.errors import TooBusy
from core.jobs import NEVER_STARTED, STUCK_REASON, limit_words, queued_cutoff, running_cutoff
from incidents.models import FailedRun, FailedRunState


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
    queued = FailedRun.objects.filter(
        state=FailedRunState.QUEUED, uploaded_at__lt=queued_cutoff(now)
    ).update(
        state=FailedRunState.ERROR,
        error=NEVER_STARTED.format(
            limit=limit_words(settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"])
        ),
    )
    return running + queued


def analyses_in_progress(*, organization_ids: list[int]) -> int:
    """Failed-run analyses queued or running that members of these organisations uploaded."""
    return (
        FailedRun.objects.filter(
            state__in=[FailedRunState.QUEUED, FailedRunState.ANALYSING],
            uploaded_by__memberships__organization_id__in=organization_ids,
        )
        .distinct()
        .count()
    )


def require_share_of_workers(*, reservation: Reservation, user: User) -> None:
    """One organisation's uploads must not fill the heavy queue for everyone: past
    HEAVY_JOBS_PER_ORG analyses in progress, the next waits (429 in the API)."""
    parties = {reservation.request.buyer_id, reservation.bid.provider_id}
    mine = [m.organization_id for m in user.memberships.all() if m.organization_id in parties]
    busy = analyses_in_progress(organization_ids=mine)
    limit = settings.HEAVY_JOBS_PER_ORG
    if busy >= limit:
        raise TooBusy(
            f"Your organisation already has {busy} failed-run analyses queued or running (the "
            f"limit is {limit}, so that one organisation cannot hold up everyone's). Upload "
            "this one when one of them has finished; nothing was stored."
        )
