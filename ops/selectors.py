"""Reads of an organisation's export jobs. Only its administrators see them; anyone else's id
(another organisation's job, a forged number) is a 404."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404

from ops.models import ExportJob
from orgs.models import Organization
from orgs.selectors import is_member_admin

RECENT = 10


def export_jobs_for_org(*, org: Organization) -> QuerySet[ExportJob]:
    return ExportJob.objects.filter(organization=org).select_related("created_by")[:RECENT]


def export_job_get(*, org: Organization | None, user: Any, pk: int) -> ExportJob:
    """One export of `org`, for one of its administrators; a 404 for everyone else."""
    if org is None or not is_member_admin(org=org, user=user):
        raise Http404
    try:
        return ExportJob.objects.select_related("organization", "created_by").get(
            organization=org, pk=pk
        )
    except ExportJob.DoesNotExist:
        raise Http404 from None
