"""`/bids/{id}/attachments/`: a bid's files — listed for its provider and (once the seal lifts,
the submitted ones) its buyer, attached by the provider; `.../{attachment}/file/` downloads one."""

from __future__ import annotations

from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_org, api_user, provider_org
from api.serializers.attachments import BidAttachmentSerializer, BidAttachmentUploadSerializer
from bids import selectors, services
from bids.models import BidAttachment
from core.filetypes import KIND_NAMES, safe_filename


class BidAttachmentListView(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        responses=BidAttachmentSerializer(many=True),
        summary="The bid's files: the next revision's for its provider, the latest submitted "
        "revision's for the buyer",
    )
    def get(self, request: Request, pk: int) -> Response:
        org = api_org(request)
        bid = selectors.bid_get_for_org(org=org, pk=pk)
        assert org is not None  # bid_get_for_org 404s without one
        rows = selectors.attachment_list_for_org(bid=bid, org=org)
        return Response(BidAttachmentSerializer(rows, many=True).data)

    @extend_schema(
        request={"multipart/form-data": BidAttachmentUploadSerializer},
        responses={201: BidAttachmentSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Attach a file to the bid; it goes into the next submitted revision (provider)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        bid = selectors.bid_get_for_provider(org=provider_org(request), pk=pk)
        body = BidAttachmentUploadSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        attachment = services.bid_attachment_add(
            bid=bid,
            user=api_user(request),
            upload=body.validated_data["file"],
            description=body.validated_data["description"],
        )
        return Response(BidAttachmentSerializer(attachment).data, status=status.HTTP_201_CREATED)


class BidAttachmentFileView(APIView):
    @extend_schema(
        responses={(200, kind): OpenApiResponse(OpenApiTypes.BINARY) for kind in KIND_NAMES},
        summary="Download one of the bid's files as it was attached",
    )
    def get(self, request: Request, pk: int, attachment: int) -> FileResponse:
        row = selectors.attachment_get_for_org(org=api_org(request), bid_pk=pk, pk=attachment)
        return FileResponse(
            row.file.open("rb"),
            as_attachment=True,
            filename=safe_filename(row.original_name, BidAttachment.FALLBACK_NAME),
            content_type=row.content_type or "application/octet-stream",
        )
