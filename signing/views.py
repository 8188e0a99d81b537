"""The organisation's signing identity: read by its members, set by its administrators."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from core.web import errors_into_form, flash_errors
from orgs.access import active_org, org_required, user_of
from orgs.models import Organization
from orgs.selectors import is_member_admin
from signing import services
from signing.forms import Pkcs12Form
from signing.selectors import TRIAL_MARK, identity_history
from signing.services import MAX_PKCS12_BYTES


@org_required()
def identity_page(request: HttpRequest) -> HttpResponse:
    return _page(request, _org(request), form=Pkcs12Form())


@org_required()
@require_POST
def identity_upload(request: HttpRequest) -> HttpResponse:
    org = _org(request)
    form = Pkcs12Form(request.POST, request.FILES)
    if not form.is_valid():
        return _page(request, org, form=form, status=400)
    upload = form.cleaned_data["pkcs12"]
    data = upload.read(MAX_PKCS12_BYTES + 1)
    try:
        identity = services.identity_upload(
            org=org, user=user_of(request), pkcs12=data, password=form.cleaned_data["password"]
        )
    except PermissionDenied as exc:
        messages.error(request, str(exc))
        return _page(request, org, form=form, status=403)
    except ValidationError as exc:
        errors_into_form(form, exc)
        return _page(request, org, form=form, status=400)
    messages.success(request, f"{org.name} now signs as {identity.subject}.")
    return redirect("signing:identity")


@org_required()
@require_POST
def identity_trial(request: HttpRequest) -> HttpResponse:
    org = _org(request)
    try:
        identity = services.identity_trial(org=org, user=user_of(request))
    except PermissionDenied as exc:
        messages.error(request, str(exc))
        return _page(request, org, form=Pkcs12Form(), status=403)
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(
            request, f"{org.name} now signs with a trial identity: {identity.subject}."
        )
    return redirect("signing:identity")


def _org(request: HttpRequest) -> Organization:
    org = active_org(request)
    assert org is not None  # org_required
    return org


def _page(
    request: HttpRequest, org: Organization, *, form: Pkcs12Form, status: int = 200
) -> HttpResponse:
    identities = identity_history(org=org)
    context = {
        "org": org,
        "current": next((i for i in identities if i.replaced_at is None), None),
        "history": [i for i in identities if i.replaced_at is not None],
        "is_admin": is_member_admin(org=org, user=request.user),
        "form": form,
        "trial_mark": TRIAL_MARK,
    }
    return render(request, "signing/identity.html", context, status=status)
