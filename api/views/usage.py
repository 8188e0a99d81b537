"""Usage reconciliation by API, as on the pages: upload the provider's usage or invoice lines
(`curl -F file=@usage.csv`), list them, read one's state, totals and differences, and read or
set the column mapping (which runs the file again). Both parties to the reservation; everyone
else gets 404."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, generics, status
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from acceptance.selectors import burnin as reservation_selectors
from api.errors import error_body
from api.filters import PAGE, page_number
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_user, org_of_kind
from api.serializers.usage import (
    UsageDifferenceSerializer,
    UsageMappingSerializer,
    UsageMappingWriteSerializer,
    UsageUploadSerializer,
    UsageUploadSummarySerializer,
    UsageUploadWriteSerializer,
)
from billing import bills, services
from billing import selectors as sel
from billing.exports import focus_response
from billing.models import UsageUpload
from engine.billing import FIELDS, RULES, Mapping, Preview

DIFFERENCES_PER_PAGE = 100


def _org_ids(request: Request) -> list[int]:
    return [org_of_kind(request).pk]


def _upload(request: Request, pk: int, uid: int) -> UsageUpload:
    upload = sel.usage_upload_get(org_ids=_org_ids(request), pk=uid)
    if upload.reservation_id != pk:
        raise Http404
    return upload


class ReservationUsageView(generics.ListAPIView[UsageUpload]):
    """The usage and invoice files uploaded for a reservation, newest first; POST uploads one."""

    serializer_class = UsageUploadSummarySerializer
    parser_classes = [MultiPartParser, FormParser]
    ordering_fields = ["uploaded_at", "original_name", "state"]

    def get_queryset(self) -> QuerySet[UsageUpload]:
        if getattr(self, "swagger_fake_view", False):
            return UsageUpload.objects.none()
        reservation = reservation_selectors.reservation_get(
            org_ids=_org_ids(self.request), pk=self.kwargs["pk"]
        )
        return sel.usage_uploads(reservation=reservation)

    @extend_schema(
        request={"multipart/form-data": UsageUploadWriteSerializer},
        responses={201: UsageUploadSerializer, 400: OpenApiTypes.OBJECT},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Upload usage or invoice lines (multipart `file`: CSV, XLSX or Parquet); "
        "stored first, reconciled with the provider's saved mapping, else waiting for one "
        "(state `mapping`); a file that cannot be read at all is 400 with the reason, "
        "the stored row in `upload`",
    )
    @idempotent
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        reservation = reservation_selectors.reservation_get(
            org_ids=_org_ids(request), pk=kwargs["pk"]
        )
        serializer = UsageUploadWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            row = services.usage_upload(
                reservation=reservation,
                user=api_user(request),
                upload=serializer.validated_data["file"],
            )
        except services.UsageRefused as exc:
            # Answered, not raised: the stored row (and its error) must outlive this request.
            body = error_body(exc.summary, exc.message_dict)
            body["upload"] = UsageUploadSerializer(exc.upload).data
            return Response(body, status=status.HTTP_400_BAD_REQUEST)
        return Response(UsageUploadSerializer(row).data, status=status.HTTP_201_CREATED)


class UsageDetailView(generics.GenericAPIView[UsageUpload]):
    serializer_class = UsageUploadSerializer

    @extend_schema(
        parameters=[
            OpenApiParameter("rule", OpenApiTypes.STR, enum=list(RULES), required=False),
            PAGE,
        ],
        summary="One upload: state (with the line and column of a file error), totals "
        "(billed, allowed, credits, net), the count per rule and a page of differences",
    )
    def get(self, request: Request, pk: int, uid: int) -> Response:
        upload = _upload(request, pk, uid)
        rule = request.query_params.get("rule", "")
        if rule and rule not in RULES:
            raise exceptions.ValidationError({"rule": [f"Choose one of: {', '.join(RULES)}."]})
        rows = sel.differences(upload=upload, rule=rule)
        page = Paginator(rows, DIFFERENCES_PER_PAGE).get_page(page_number(request))
        listing = {
            "rule": rule,
            "page": page.number,
            "pages": page.paginator.num_pages,
            "count": page.paginator.count,
            "results": UsageDifferenceSerializer(list(page.object_list), many=True).data,
        }
        context = {"difference_page": listing}
        return Response(UsageUploadSerializer(upload, context=context).data)


class UsageMappingView(generics.GenericAPIView[UsageUpload]):
    serializer_class = UsageMappingSerializer
    parser_classes = [JSONParser]

    @extend_schema(
        summary="The file's headers, its mapping, the provider's, and what reading it found: "
        "for a bill layout, the stored inspection (detected dialect, profile, proposed columns, "
        "first lines, bad cells, questions, node matching); else a preview of the first rows"
    )
    def get(self, request: Request, pk: int, uid: int) -> Response:
        upload = _upload(request, pk, uid)
        saved = sel.provider_mapping(provider_id=upload.reservation.bid.provider_id)
        is_bill = bills.is_bill(upload.mapping)
        shown = (
            Preview()
            if is_bill
            else sel.usage_preview(upload=upload, mapping=Mapping.from_json(upload.mapping))
        )
        data = {
            "headers": upload.headers,
            "mapping": upload.mapping,
            "provider_mapping": saved.as_json() if saved else None,
            "field_labels": FIELDS,
            "preview_error": shown.error,
            "preview": [row.__dict__ for row in shown.rows],
            "reader": "profile" if is_bill else "columns",
            "inspection": upload.inspection,
            "inspected_at": upload.inspected_at,
            "profiles": bills.PROFILE_CHOICES,
            "bill_fields": bills.BILL_FIELDS,
        }
        return Response(UsageMappingSerializer(data).data)

    @extend_schema(
        request=UsageMappingWriteSerializer,
        responses={202: UsageUploadSerializer},
        summary="Set the column mapping (or, with `profile`, the bill layout's settings, answers "
        "and node identity) and reconcile this file with it again: a provider member's becomes "
        "the provider's saved mapping; a buyer's applies to this file only",
    )
    def put(self, request: Request, pk: int, uid: int) -> Response:
        upload = _upload(request, pk, uid)
        serializer = UsageMappingWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if data.get("profile"):
            upload = services.usage_map_bill(
                upload=upload,
                user=api_user(request),
                profile=data["profile"],
                columns=data["columns"],
                overrides=data.get("overrides") or {},
                answers=data.get("answers") or {},
                node_map=data.get("node_map") or {},
            )
        else:
            upload = services.usage_map(
                upload=upload,
                user=api_user(request),
                columns=data["columns"],
                unit=data["unit"],
                date_format=data.get("date_format", ""),
            )
        return Response(UsageUploadSerializer(upload).data, status=status.HTTP_202_ACCEPTED)


class UsageRetryView(generics.GenericAPIView[UsageUpload]):
    serializer_class = UsageUploadSerializer

    @extend_schema(
        request=None,
        responses={202: UsageUploadSerializer},
        summary="Run a failed reconciliation again (or queue one that never reached a worker); "
        "503 with Retry-After while the task queue is unreachable",
    )
    def post(self, request: Request, pk: int, uid: int) -> Response:
        upload = services.usage_retry(upload=_upload(request, pk, uid), user=api_user(request))
        return Response(UsageUploadSerializer(upload).data, status=status.HTTP_202_ACCEPTED)


class UsageFocusView(generics.GenericAPIView[UsageUpload]):
    serializer_class = UsageUploadSerializer

    @extend_schema(
        responses={(200, "text/csv"): OpenApiTypes.STR},
        summary="The latest reconciliation, every billed line in FOCUS 1.1 column names (CSV: "
        "BilledCost, ContractedCost, EffectiveCost, ChargePeriodStart, ...); 404 until reconciled",
    )
    def get(self, request: Request, pk: int, uid: int) -> HttpResponse:
        return focus_response(_upload(request, pk, uid))
