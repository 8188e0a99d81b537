"""`/api/v1/runs/<run_id>/evidence/`: upload from the cluster (curl) and read back the verdict."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from rest_framework import status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from acceptance import selectors_burnin as sel
from acceptance.services import burnin as services
from api.errors import FIELD_PROBLEMS, error_body
from api.idempotency import idempotent
from api.serializers.evidence import CheckSerializer, EvidenceSerializer, upload_result


class RunEvidenceView(APIView):
    parser_classes = [MultiPartParser, FormParser]

    def _run(self, request: Request, run_id: int) -> Any:
        return sel.run_get(org_ids=sel.org_ids_of_user(request.user), pk=run_id)

    def get(self, request: Request, run_id: int) -> Response:
        run = self._run(request, run_id)
        evidence = sel.evidence_list(run=run)
        current = run.checks_current
        return Response(
            {
                "run": {"id": run.pk, "label": run.label, "reservation": run.reservation_id},
                "checks_state": run.checks_state,
                "checks_current": current,
                "checks_error": run.checks_error or None,
                "gate": {"passed": run.gate_passed, "summary": run.gate_summary}
                if current
                else None,
                "evidence": EvidenceSerializer(evidence, many=True).data,
                "checks": CheckSerializer(run.checks.order_by("position"), many=True).data
                if current
                else [],
            }
        )

    @idempotent
    def post(self, request: Request, run_id: int) -> Response:
        run = self._run(request, run_id)
        files = request.FILES.getlist("file")
        if not files:
            return Response(
                error_body(FIELD_PROBLEMS, {"file": ["Send one or more files as field 'file'."]}),
                status=status.HTTP_400_BAD_REQUEST,
            )
        user = request.user
        assert isinstance(user, User)
        data: Any = request.data
        node = str(data.get("node", ""))
        kind = str(data.get("kind", "")) or None
        results: list[dict[str, Any]] = []
        for upload in files:
            try:
                outcome = services.evidence_upload(
                    run=run, user=user, upload=upload, node=node, kind=kind
                )
            except ValidationError as exc:
                results.append({"name": upload.name, "error": " ".join(exc.messages)})
                continue
            results.append(upload_result(outcome.evidence, duplicate=outcome.duplicate))
        stored = [r for r in results if "id" in r]  # refused files carry no id
        if not stored:
            refused = [f"{r['name']}: {r['error']}" for r in results]
            body = error_body("No file was stored.", {"file": refused})
            return Response(
                {**body, "run": run.pk, "files": results}, status=status.HTTP_400_BAD_REQUEST
            )
        code: int
        if any(not r["duplicate"] for r in stored):
            code = status.HTTP_201_CREATED
        else:
            code = status.HTTP_200_OK
        return Response({"run": run.pk, "files": results}, status=code)
