"""An organisation's webhooks: its administrators list, add, edit, rotate and delete endpoints,
read each one's delivery log and redeliver from it. Endpoint URLs can be credentials (Slack's
is), so the other members get a 403 page naming the administrators; another organisation's
endpoint or delivery is a 404."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from core.web import errors_into_form, flash_errors
from orgs import selectors as org_selectors
from orgs.access import active_org, org_required, user_of
from orgs.choices import MemberRole
from orgs.models import Organization
from webhooks import selectors, services
from webhooks.forms import EndpointForm
from webhooks.models import Endpoint

LOG_PAGE_SIZE = 20


def _org(request: HttpRequest) -> Organization:
    org = active_org(request)
    assert org is not None  # org_required
    return org


def _refused(request: HttpRequest, org: Organization) -> HttpResponse:
    admins = [m for m in org_selectors.member_list(org=org) if m.role == MemberRole.ADMIN]
    return render(request, "webhooks/not_admin.html", {"org": org, "admins": admins}, status=403)


def _is_admin(request: HttpRequest, org: Organization) -> bool:
    return org_selectors.is_member_admin(org=org, user=request.user)


def _with_secret(request: HttpRequest, template: str, context: dict[str, Any]) -> HttpResponse:
    # The secret is in this response only; the page makes its history entry a plain GET.
    response = render(request, template, context)
    response["Cache-Control"] = "no-store"
    return response


@org_required()
def endpoint_list(request: HttpRequest) -> HttpResponse:
    org = _org(request)
    if not _is_admin(request, org):
        return _refused(request, org)
    form = EndpointForm(request.POST or None, organization=org)
    context: dict[str, Any] = {"org": org, "form": form}
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            endpoint, secret = services.endpoint_create(
                organization=org,
                user=user_of(request),
                url=data["url"],
                events=data["events"],
                payload_format=data["payload_format"],
                description=data["description"],
                routing_key=data["routing_key"],
            )
        except PermissionDenied:
            return _refused(request, org)
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            context.update(
                form=EndpointForm(organization=org), new_endpoint=endpoint, new_secret=secret
            )
            context["endpoints"] = list(selectors.endpoint_list(organization=org))
            return _with_secret(request, "webhooks/list.html", context)
    context["endpoints"] = list(selectors.endpoint_list(organization=org))
    return render(request, "webhooks/list.html", context)


def _edit_form(org: Organization, endpoint: Endpoint, data: Any = None) -> EndpointForm:
    initial = {
        "url": endpoint.url,
        "description": endpoint.description,
        "events": endpoint.events,
        "active": endpoint.active,
    }
    return EndpointForm(data, organization=org, editing=True, initial=initial)


def _detail(
    request: HttpRequest, org: Organization, endpoint: Endpoint, form: EndpointForm, **extra: Any
) -> dict[str, Any]:
    page = Paginator(selectors.delivery_log(endpoint=endpoint), LOG_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return {"org": org, "endpoint": endpoint, "form": form, "page": page, **extra}


@org_required()
def endpoint_detail(request: HttpRequest, public_id: UUID) -> HttpResponse:
    org = _org(request)
    endpoint = selectors.endpoint_get(organization=org, public_id=public_id)
    if not _is_admin(request, org):
        return _refused(request, org)
    form = _edit_form(org, endpoint, request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            services.endpoint_update(
                endpoint=endpoint,
                user=user_of(request),
                url=data["url"],
                events=data["events"],
                active=data["active"],
                description=data["description"],
                routing_key=data["routing_key"],
            )
        except PermissionDenied:
            return _refused(request, org)
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(request, "Endpoint saved.")
            return redirect("webhooks:detail", public_id=endpoint.public_id)
    status = 400 if request.method == "POST" else 200
    context = _detail(request, org, endpoint, form)
    return render(request, "webhooks/detail.html", context, status=status)


@org_required()
@require_POST
def endpoint_rotate(request: HttpRequest, public_id: UUID) -> HttpResponse:
    org = _org(request)
    endpoint = selectors.endpoint_get(organization=org, public_id=public_id)
    try:
        secret = services.endpoint_rotate_secret(endpoint=endpoint, user=user_of(request))
    except PermissionDenied:
        return _refused(request, org)
    context = _detail(request, org, endpoint, _edit_form(org, endpoint), new_secret=secret)
    return _with_secret(request, "webhooks/detail.html", context)


@org_required()
@require_POST
def endpoint_delete(request: HttpRequest, public_id: UUID) -> HttpResponse:
    org = _org(request)
    endpoint = selectors.endpoint_get(organization=org, public_id=public_id)
    try:
        services.endpoint_delete(endpoint=endpoint, user=user_of(request))
    except PermissionDenied:
        return _refused(request, org)
    messages.success(request, f"The endpoint {endpoint.url} is deleted with its delivery log.")
    return redirect("webhooks:list")


@org_required()
@require_POST
def delivery_redeliver(request: HttpRequest, public_id: UUID) -> HttpResponse:
    org = _org(request)
    delivery = selectors.delivery_get(organization=org, public_id=public_id)
    try:
        services.delivery_redeliver(delivery=delivery, user=user_of(request))
    except PermissionDenied:
        return _refused(request, org)
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, "Redelivery queued: its attempt appears in the log.")
    return redirect("webhooks:detail", public_id=delivery.endpoint.public_id)
