"""`/api/v1/organization/export/`: an organisation's administrators ask for its data export,
poll the job and download the zip. The routes sit under the API's prefix but live here: ops and
api are independent apps of the top layer, so the acting organisation is found with the rule
both share (orgs.selectors.acting_organization and the `X-Clusterbid-Org` header)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import FileResponse, Http404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ops import selectors, services
from ops.models import ExportJob
from orgs.models import Organization
from orgs.selectors import acting_organization, is_member_admin, memberships_of

ORG_HEADER = "X-Clusterbid-Org"  # as api.permissions reads it


def _org(request: Request) -> Organization:
    session_org = getattr(request._request, "org", None)
    org = acting_organization(
        memberships=memberships_of(request.user),
        slug=request.headers.get(ORG_HEADER),
        org_id=session_org.pk if session_org is not None else None,
    )
    if org is None:
        raise Http404
    return org


def _admin_org(request: Request) -> Organization:
    """The acting organisation, for one of its administrators; a plain member is told why."""
    org = _org(request)
    if not is_member_admin(org=org, user=request.user):
        raise exceptions.PermissionDenied(services.export_refusal(org))
    return org


class ExportJobSerializer(serializers.ModelSerializer[ExportJob]):
    created_by = serializers.CharField(source="created_by.get_username", default=None)
    url = serializers.SerializerMethodField()
    download_url = serializers.SerializerMethodField()

    class Meta:
        model = ExportJob
        fields = [
            "id",
            "status",
            "error",
            "size",
            "sha256",
            "attempts",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
            "url",
            "download_url",
        ]
        read_only_fields = fields

    def get_url(self, job: ExportJob) -> str:
        return reverse("ops:api-export-detail", args=[job.pk])

    def get_download_url(self, job: ExportJob) -> str | None:
        return reverse("ops:api-export-file", args=[job.pk]) if job.file else None


class ExportListView(APIView):
    @extend_schema(
        responses={200: ExportJobSerializer(many=True)},
        summary="Your organisation's recent data exports (administrators)",
    )
    def get(self, request: Request) -> Response:
        jobs = selectors.export_jobs_for_org(org=_admin_org(request))
        return Response(ExportJobSerializer(jobs, many=True).data)

    @extend_schema(
        request=None,
        responses={202: ExportJobSerializer},
        summary="Export your organisation's data as one zip (built by a worker; poll the job)",
    )
    def post(self, request: Request) -> Response:
        org = _admin_org(request)
        try:
            job = services.export_request(org=org, user=request.user)
        except PermissionDenied as exc:
            raise exceptions.PermissionDenied(str(exc)) from exc
        job.refresh_from_db()
        return Response(ExportJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class ExportDetailView(APIView):
    @extend_schema(responses={200: ExportJobSerializer}, summary="The state of a data export")
    def get(self, request: Request, pk: int) -> Response:
        job = selectors.export_job_get(org=_org(request), user=request.user, pk=pk)
        return Response(ExportJobSerializer(job).data)


class ExportRetryView(APIView):
    @extend_schema(
        request=None,
        responses={202: ExportJobSerializer},
        summary="Build a failed data export again",
    )
    def post(self, request: Request, pk: int) -> Response:
        job = selectors.export_job_get(org=_org(request), user=request.user, pk=pk)
        job = services.export_retry(job=job, user=request.user)
        return Response(ExportJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class ExportFileView(APIView):
    @extend_schema(
        responses={
            (200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY, description="The zip")
        },
        summary="Download a finished data export",
    )
    def get(self, request: Request, pk: int) -> Any:
        job = selectors.export_job_get(org=_org(request), user=request.user, pk=pk)
        if not job.file:
            raise exceptions.NotFound(
                f"Export {job.pk} has no archive: it is {job.get_status_display().lower()}."
            )
        return FileResponse(
            job.file.open("rb"),
            as_attachment=True,
            filename=f"{job.organization.slug}-export-{job.pk}.zip",
            content_type="application/zip",
        )
