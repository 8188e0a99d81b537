"""An organisation's webhooks from a script: the pages' rules (webhooks.services) behind the API.

The acting organisation's administrators list, create, edit, rotate and delete its endpoints,
read each one's delivery log and redeliver from it. An endpoint's URL can itself be a
credential (Slack's is), so any other member is refused with a 403 naming the administrators,
as the pages do; another organisation's endpoint or delivery is a 404. A signing secret is in
the answer that made it (create, rotate) and nowhere else, not even an idempotent replay.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response

from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent_withholding
from api.permissions import api_user, org_of_kind
from api.serializers.webhooks import (
    WebhookCreateSerializer,
    WebhookDeliverySerializer,
    WebhookEndpointSerializer,
    WebhookSecretSerializer,
    WebhookUpdateSerializer,
)
from orgs import selectors as org_selectors
from orgs.choices import MemberRole
from orgs.models import Organization
from webhooks import selectors, services
from webhooks.models import Delivery, Endpoint


def _refusal(org: Organization) -> str:
    admins = [
        m.user.get_full_name() or m.user.get_username()
        for m in org_selectors.member_list(org=org)
        if m.role == MemberRole.ADMIN
    ]
    return (
        f"Only the administrators of {org.name} manage its webhooks, since an endpoint's "
        f"address can itself be a credential: {', '.join(admins) or 'none'}."
    )


def _checked_admin(request: Request, org: Organization) -> Organization:
    if not org_selectors.is_member_admin(org=org, user=request.user):
        raise PermissionDenied(_refusal(org))
    return org


def _admin_org(request: Request) -> Organization:
    return _checked_admin(request, org_of_kind(request))


def _endpoint(request: Request, pk: UUID) -> Endpoint:
    """Another organisation's endpoint is a 404 before anything; then only an admin goes on."""
    org = org_of_kind(request)
    endpoint = selectors.endpoint_get(organization=org, public_id=pk)
    _checked_admin(request, org)
    return endpoint


def _secret_shown(endpoint: Endpoint, secret: str, code: int) -> Response:
    response = Response(
        WebhookSecretSerializer(endpoint, context={"secret": secret}).data, status=code
    )
    response["Cache-Control"] = "no-store"  # the secret is in this answer only
    return response


class WebhookListView(generics.ListAPIView[Endpoint]):
    serializer_class = WebhookEndpointSerializer
    filter_backends: list[Any] = []

    def get_queryset(self) -> QuerySet[Endpoint]:
        if getattr(self, "swagger_fake_view", False):
            return Endpoint.objects.none()
        return selectors.endpoint_list(organization=_admin_org(self.request))

    @extend_schema(
        summary="Webhook endpoints of the organisation you act for (its administrators), "
        "newest first; never a secret or a routing key"
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        request=WebhookCreateSerializer,
        responses={201: WebhookSecretSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Add an endpoint (administrators): the answer carries its signing secret, "
        "shown this once (an idempotent replay answers `secret: null`)",
    )
    @idempotent_withholding("secret")
    def post(self, request: Request) -> Response:
        org = _admin_org(request)
        body = WebhookCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        endpoint, secret = services.endpoint_create(
            organization=org, user=api_user(request), **body.validated_data
        )
        return _secret_shown(endpoint, secret, status.HTTP_201_CREATED)


class WebhookDetailView(generics.GenericAPIView[Endpoint]):
    serializer_class = WebhookEndpointSerializer

    @extend_schema(summary="One webhook endpoint (administrators)")
    def get(self, request: Request, pk: UUID) -> Response:
        return Response(WebhookEndpointSerializer(_endpoint(request, pk)).data)

    @extend_schema(
        request=WebhookUpdateSerializer,
        responses={200: WebhookEndpointSerializer},
        summary="Change an endpoint's URL, events, description, active flag or routing key "
        "(administrators); its format and secret stay",
    )
    def patch(self, request: Request, pk: UUID) -> Response:
        endpoint = _endpoint(request, pk)
        body = WebhookUpdateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        given = body.validated_data
        services.endpoint_update(
            endpoint=endpoint,
            user=api_user(request),
            url=given.get("url", endpoint.url),
            events=given.get("events", endpoint.events),
            active=given.get("active", endpoint.active),
            description=given.get("description", endpoint.description),
            routing_key=given.get("routing_key", ""),
        )
        return Response(WebhookEndpointSerializer(endpoint).data)

    @extend_schema(
        responses={204: None},
        summary="Delete an endpoint with its delivery log (administrators)",
    )
    def delete(self, request: Request, pk: UUID) -> Response:
        services.endpoint_delete(endpoint=_endpoint(request, pk), user=api_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookRotateView(generics.GenericAPIView[Endpoint]):
    serializer_class = WebhookSecretSerializer

    @extend_schema(
        request=None,
        responses={200: WebhookSecretSerializer},
        summary="Rotate the signing secret (administrators): the new one is in this answer "
        "only; the old one still signs until `previous_secret_until`",
    )
    def post(self, request: Request, pk: UUID) -> Response:
        endpoint = _endpoint(request, pk)
        secret = services.endpoint_rotate_secret(endpoint=endpoint, user=api_user(request))
        return _secret_shown(endpoint, secret, status.HTTP_200_OK)


class WebhookDeliveryListView(generics.ListAPIView[Delivery]):
    serializer_class = WebhookDeliverySerializer
    filter_backends: list[Any] = []

    def get_queryset(self) -> QuerySet[Delivery]:
        if getattr(self, "swagger_fake_view", False):
            return Delivery.objects.none()
        return selectors.delivery_log(endpoint=_endpoint(self.request, self.kwargs["pk"]))

    @extend_schema(
        summary="An endpoint's delivery log, newest first, each delivery with its attempts "
        "(administrators)"
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class WebhookRedeliverView(generics.GenericAPIView[Delivery]):
    serializer_class = WebhookDeliverySerializer

    @extend_schema(
        request=None,
        responses={202: WebhookDeliverySerializer},
        summary="Send a delivery again now, one attempt more (administrators); 409 while an "
        "attempt is under way or the endpoint is disabled",
    )
    def post(self, request: Request, pk: UUID) -> Response:
        org = org_of_kind(request)
        delivery = selectors.delivery_get(organization=org, public_id=pk)
        _checked_admin(request, org)
        queued = services.delivery_redeliver(delivery=delivery, user=api_user(request))
        return Response(WebhookDeliverySerializer(queued).data, status=status.HTTP_202_ACCEPTED)
