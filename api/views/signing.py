"""Contract annex signatures (`/annexes/{id}/signatures/`, `/sign/`, `/signed-pdf/`) and the
organisation's signing identity (`/organization/signing-identity/`)."""

from __future__ import annotations

from django.http import FileResponse, Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annexes import selectors as selectors_annex
from annexes.signatures import signing_report
from annexes.signing import annex_sign, signing_state
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_user, org_of_kind
from api.serializers.signing import (
    AnnexSigningSerializer,
    Pkcs12UploadSerializer,
    SigningIdentitySerializer,
    SigningIdentityStateSerializer,
    SignRequestSerializer,
)
from signing import services as signing_services
from signing.selectors import identity_current


class AnnexSignaturesView(APIView):
    @extend_schema(
        responses={200: AnnexSigningSerializer},
        summary="A contract annex version's signatures, each validated with pyHanko: who, when, "
        "whether the document changed since, whether the certificate chains to a trust root",
    )
    def get(self, request: Request, pk: int) -> Response:
        annex = selectors_annex.annex_signable_for_org(org=org_of_kind(request), pk=pk)
        report = signing_report(state=signing_state(annex=annex))
        return Response(AnnexSigningSerializer(report).data)


class AnnexSignView(APIView):
    @extend_schema(
        request=SignRequestSerializer,
        responses={201: AnnexSigningSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Sign a contract annex version for the organisation you act for (an approver or "
        "administrator; the buyer first, then the provider)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        org = org_of_kind(request)
        annex = selectors_annex.annex_signable_for_org(org=org, pk=pk)
        body = SignRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        annex_sign(
            annex=annex, user=api_user(request), org=org, confirmed=body.validated_data["confirm"]
        )
        report = signing_report(state=signing_state(annex=annex))
        return Response(AnnexSigningSerializer(report).data, status=status.HTTP_201_CREATED)


class AnnexSignedPdfView(APIView):
    @extend_schema(
        responses={(200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY)},
        summary="Download the signed PDF (the newest signature's copy, carrying every signature)",
    )
    def get(self, request: Request, pk: int) -> FileResponse:
        annex = selectors_annex.annex_signable_for_org(org=org_of_kind(request), pk=pk)
        signatures = signing_state(annex=annex).signatures
        if not signatures:
            raise Http404
        last = signatures[-1]
        return FileResponse(
            last.pdf.open("rb"), as_attachment=True, filename=last.filename,
            content_type="application/pdf",
        )  # fmt: skip


class SigningIdentityView(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        responses={200: SigningIdentityStateSerializer},
        summary="The signing identity of the organisation you act for",
    )
    def get(self, request: Request) -> Response:
        identity = identity_current(org=org_of_kind(request))
        return Response(SigningIdentityStateSerializer({"identity": identity}).data)

    @extend_schema(
        request={"multipart/form-data": Pkcs12UploadSerializer},
        responses={201: SigningIdentitySerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Upload a PKCS#12 as the organisation's signing identity (administrators)",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        org = org_of_kind(request)
        body = Pkcs12UploadSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        identity = signing_services.identity_upload(
            org=org,
            user=api_user(request),
            pkcs12=body.validated_data["pkcs12"].read(signing_services.MAX_PKCS12_BYTES + 1),
            password=body.validated_data["password"],
        )
        return Response(SigningIdentitySerializer(identity).data, status=status.HTTP_201_CREATED)


class SigningIdentityTrialView(APIView):
    @extend_schema(
        request=None,
        responses={201: SigningIdentitySerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Take a trial signing identity from this instance's CA (administrators; "
        "not a legal identity)",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        identity = signing_services.identity_trial(org=org_of_kind(request), user=api_user(request))
        return Response(SigningIdentitySerializer(identity).data, status=status.HTTP_201_CREATED)
