"""`/api/v1/runs/<run_id>/evidence/`: upload from the cluster (curl) and read back the verdict;
re-check a run, retry or withdraw one evidence file (the run page's buttons)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from acceptance.models import BurnInRun, Check, Evidence
from acceptance.selectors import burnin as sel
from acceptance.selectors.override import check_codes
from acceptance.services import burnin as services
from api.errors import FIELD_PROBLEMS, error_body
from api.filters import EVIDENCE_ORDERING, EvidenceFilter
from api.idempotency import idempotent
from api.permissions import api_user, org_of_kind
from api.serializers.evidence import CheckSerializer, EvidenceSerializer, upload_result
from api.serializers.reservations import RunSerializer
from core.errors import Conflict
from core.lifecycle import MoveRefused


def _coded_checks(run: BurnInRun) -> list[Check]:
    """The run's checks, each with the code an override names it by."""
    rows = list(run.checks.order_by("position"))
    for row, code in zip(rows, check_codes(rows), strict=True):
        setattr(row, "code", code)  # noqa: B010 (not a model field)
    return rows


class RunEvidenceView(generics.GenericAPIView[Evidence]):
    """A burn-in run's evidence; `PilotEvidenceView` and `CanaryEvidenceView` serve a pilot's
    and a canary's run the same way."""

    parser_classes = [MultiPartParser, FormParser]
    serializer_class = EvidenceSerializer
    filterset_class = EvidenceFilter
    ordering_fields = EVIDENCE_ORDERING
    download_view = "burnin:evidence-download"

    def _run(self, request: Request) -> BurnInRun:
        return sel.run_get(org_ids=[org_of_kind(request).pk], pk=self.kwargs["run_id"])

    def get_queryset(self) -> QuerySet[Evidence]:
        if getattr(self, "swagger_fake_view", False):
            return Evidence.objects.none()
        return sel.evidence_list(run=self._run(self.request))

    def get(self, request: Request, **kwargs: Any) -> Response:
        run = self._run(request)
        page = self.paginate_queryset(self.filter_queryset(sel.evidence_list(run=run)))
        assert self.paginator is not None and page is not None  # the API always paginates
        current = run.checks_current
        # The list envelope every list has, with the run's verdict beside the page of files.
        files = EvidenceSerializer(page, many=True, context={"download_view": self.download_view})
        body = self.paginator.get_paginated_response(files.data)
        body.data.update(
            {
                "run": {
                    "id": run.pk,
                    "label": run.label,
                    "reservation": run.reservation_id,
                    "pilot": run.pilot_id,
                    "canary": run.canary_id,
                },
                "checks_state": run.checks_state,
                "checks_current": current,
                "checks_error": run.checks_error or None,
                "gate": {"passed": run.gate_passed, "summary": run.gate_summary}
                if current
                else None,
                "checks": CheckSerializer(_coded_checks(run), many=True).data if current else [],
            }
        )
        return body

    @idempotent
    def post(self, request: Request, **kwargs: Any) -> Response:
        run = self._run(request)
        files = request.FILES.getlist("file")
        if not files:
            return Response(
                error_body(FIELD_PROBLEMS, {"file": ["Send one or more files as field 'file'."]}),
                status=status.HTTP_400_BAD_REQUEST,
            )
        user = api_user(request)
        data: Any = request.data
        node = str(data.get("node", ""))
        kind = str(data.get("kind", "")) or None
        results: list[dict[str, Any]] = []
        for upload in files:
            try:
                outcome = services.evidence_upload(
                    run=run, user=user, upload=upload, node=node, kind=kind
                )
            except (Conflict, MoveRefused):
                raise  # the run's state, or the caller's party, refuses every file alike
            except ValidationError as exc:
                if hasattr(exc, "error_dict"):
                    raise  # `node` or `kind` is wrong for every file: the 400 names that field
                results.append({"name": upload.name, "error": " ".join(exc.messages)})
                continue
            results.append(
                upload_result(
                    outcome.evidence,
                    duplicate=outcome.duplicate,
                    download_view=self.download_view,
                )
            )
        stored = [r for r in results if "id" in r]  # refused files carry no id
        refused = [f"{r['name']}: {r['error']}" for r in results if "id" not in r]
        if refused:
            # Any refusal is a 400 so `curl --fail` notices; `files` still lists what was stored.
            detail = (
                f"{len(refused)} of {len(results)} files were refused; the others were stored."
                if stored
                else "No file was stored."
            )
            body = error_body(detail, {"file": refused})
            return Response(
                {**body, "run": run.pk, "files": results}, status=status.HTTP_400_BAD_REQUEST
            )
        code: int
        if any(not r["duplicate"] for r in stored):
            code = status.HTTP_201_CREATED
        else:
            code = status.HTTP_200_OK
        return Response({"run": run.pk, "files": results}, status=code)


class RunRecheckView(generics.GenericAPIView[BurnInRun]):
    serializer_class = RunSerializer

    @extend_schema(
        request=None,
        responses={202: RunSerializer},
        summary="Run the checks again on the run's evidence (both parties, before the decision)",
    )
    def post(self, request: Request, pk: int) -> Response:
        run = sel.run_get(org_ids=[org_of_kind(request).pk], pk=pk)
        run = services.run_request_recheck(run=run, user=api_user(request))
        return Response(RunSerializer(run).data, status=status.HTTP_202_ACCEPTED)


def _evidence(request: Request, pk: int) -> Evidence:
    return sel.evidence_get(org_ids=[org_of_kind(request).pk], pk=pk)


class EvidenceRetryView(generics.GenericAPIView[Evidence]):
    serializer_class = EvidenceSerializer

    @extend_schema(
        request=None,
        responses={202: EvidenceSerializer},
        summary="Queue an evidence file for parsing again (e.g. after a parser fix)",
    )
    def post(self, request: Request, pk: int) -> Response:
        evidence = services.evidence_retry(evidence=_evidence(request, pk), user=api_user(request))
        return Response(EvidenceSerializer(evidence).data, status=status.HTTP_202_ACCEPTED)


class EvidenceWithdrawView(generics.GenericAPIView[Evidence]):
    serializer_class = EvidenceSerializer

    @extend_schema(
        request=None,
        responses=EvidenceSerializer,
        summary="Take a wrong or superseded file out of the checks; it stays stored and listed",
    )
    def post(self, request: Request, pk: int) -> Response:
        evidence = _evidence(request, pk)
        evidence = services.evidence_withdraw(evidence=evidence, user=api_user(request))
        return Response(EvidenceSerializer(evidence).data)
