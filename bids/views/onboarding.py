"""A new provider's way in: the buyer invites an e-mail address; the link in the e-mail opens
the join page, where the person creates the provider organisation and its first administrator
and lands on the request. Also the buyer's read of an invited provider's supplier profile."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.core.exceptions import ValidationError
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from bids import selectors, services
from bids.gate_forms import JoinForm, SupplierInviteForm
from bids.services.onboarding import invitation_from_token
from core.errors import Conflict
from core.ratelimit import RateLimited, limit_check, limit_hit
from core.web import errors_into_form, flash_errors
from orgs.access import active_org, org_required, user_of
from orgs.choices import OrgKind
from orgs.middleware import SESSION_KEY
from suppliers import selectors as supplier_selectors
from suppliers.views import document_response, document_rows

JOIN_BACKEND = "django.contrib.auth.backends.ModelBackend"


@org_required(OrgKind.BUYER)
@require_POST
def supplier_invite(request: HttpRequest, pk: int) -> HttpResponse:
    req = selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    form = SupplierInviteForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, str(error))
        return redirect(reverse("bids:request-detail", args=[pk]) + "#new-provider")
    try:
        invitation = services.supplier_invite(
            capacity_request=req,
            user=user_of(request),
            email=form.cleaned_data["email"],
            company=form.cleaned_data["company"],
        )
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(
            request,
            f"Invitation e-mailed to {invitation.email}; its link works once, until "
            f"{invitation.expires_at:%-d %b %Y}.",
        )
    return redirect(reverse("bids:request-detail", args=[pk]) + "#new-provider")


def supplier_join(request: HttpRequest, token: str) -> HttpResponse:
    """Open to anyone holding the link: the signature and the stored invitation decide. Tries
    and links that do not hold are counted per client address: nobody signs up or guesses
    tokens in bulk."""
    try:
        _bad_links(request, count=False)
        invitation = invitation_from_token(token)
    except RateLimited as exc:
        return _limited(request, exc, {})
    except Conflict as exc:  # a genuine link, used or expired: nothing guessed
        return _join_refused(request, exc)
    except ValidationError as exc:
        try:
            _bad_links(request, count=True)
        except RateLimited as limited:
            return _limited(request, limited, {})
        return _join_refused(request, exc)
    form = JoinForm(
        request.POST or None,
        initial={"email": invitation.email, "organization_name": invitation.company},
    )
    if request.method == "POST":
        try:
            limit_hit(
                scope="supplier-join",
                request=request,
                rate=settings.SUPPLIER_JOIN_RATE,
                what="sign-up attempts",
            )
        except RateLimited as exc:
            typed = {
                name: value
                for name, value in request.POST.items()
                if name in form.fields and not name.startswith("password")
            }
            kept = JoinForm(initial=typed)  # unbound: no errors for a form not checked
            return _limited(request, exc, {"form": kept, "invitation": invitation})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            user, org = services.supplier_join(
                token=token,
                organization_name=data["organization_name"],
                username=data["username"],
                email=data["email"],
                password=data["password1"],
            )
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            login(request, user, backend=JOIN_BACKEND)
            request.session[SESSION_KEY] = org.pk
            messages.success(
                request,
                f"Welcome: {org.name} is created and you are its administrator. Fill in its "
                "supplier profile under Profile.",
            )
            return redirect("bids:request-detail", pk=invitation.request_id)
    return render(request, "bids/supplier_join.html", {"form": form, "invitation": invitation})


def _bad_links(request: HttpRequest, *, count: bool) -> None:
    """Links whose signature does not hold, from this address: checked, or counted too."""
    (limit_hit if count else limit_check)(
        scope="supplier-join-bad-link",
        request=request,
        rate=settings.SUPPLIER_JOIN_BAD_LINK_RATE,
        what="invitation links that do not work",
    )


def _join_refused(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    context = {"refusal": " ".join(exc.messages)}
    return render(request, "bids/supplier_join.html", context, status=410)


def _limited(request: HttpRequest, exc: RateLimited, context: dict[str, Any]) -> HttpResponse:
    """429 in words; a posted form comes back as typed (the password fields empty)."""
    context = {**context, "limited": exc.message}
    response = render(request, "bids/supplier_join.html", context, status=429)
    response["Retry-After"] = str(exc.retry_after)
    return response


@org_required(OrgKind.BUYER)
def supplier_profile(request: HttpRequest, pk: int, provider: int) -> HttpResponse:
    """An invited provider's profile, for the buyer that invited it to this request."""
    req, org = selectors.invited_provider_for_buyer(
        org=active_org(request), pk=pk, provider=provider
    )
    documents = list(supplier_selectors.documents_for(org=org))
    return render(
        request,
        "bids/supplier_profile.html",
        {
            "req": req,
            "org": org,
            "profile": supplier_selectors.profile_for(org=org),
            "documents": document_rows(documents, "bids:supplier-document", req.pk, org.pk),
            "is_admin": False,
        },
    )


@org_required(OrgKind.BUYER)
def supplier_document(request: HttpRequest, pk: int, provider: int, document: int) -> FileResponse:
    _req, org = selectors.invited_provider_for_buyer(
        org=active_org(request), pk=pk, provider=provider
    )
    return document_response(supplier_selectors.document_get(org=org, pk=document))
