"""A provider organisation's own supplier profile: every member reads it, its administrators
change it and file or remove compliance documents."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from core.filetypes import safe_filename
from core.web import errors_into_form, flash_errors
from orgs.access import active_org, org_required, user_of
from orgs.choices import OrgKind
from orgs.models import Organization
from orgs.selectors import is_member_admin
from suppliers import selectors, services
from suppliers.forms import DocumentForm, ProfileForm
from suppliers.models import ComplianceDocument


def _org(request: HttpRequest) -> Organization:
    org = active_org(request)
    assert org is not None
    return org


def document_rows(
    documents: list[ComplianceDocument], url_name: str, *args: int
) -> list[tuple[ComplianceDocument, str]]:
    """Each document with the download address the reader may use."""
    return [(doc, reverse(url_name, args=[*args, doc.pk])) for doc in documents]


@org_required(OrgKind.PROVIDER)
def profile(request: HttpRequest) -> HttpResponse:
    org = _org(request)
    form = ProfileForm(request.POST or None, instance=selectors.profile_for(org=org))
    if request.method == "POST":
        if not is_member_admin(org=org, user=user_of(request)):
            raise PermissionDenied
        if form.is_valid():
            try:
                services.profile_save(org=org, user=user_of(request), data=form.cleaned_data)
            except ValidationError as exc:
                errors_into_form(form, exc)
            else:
                messages.success(request, "Supplier profile saved.")
                return redirect("suppliers:profile")
    return _page(request, org, profile_form=form)


def _page(
    request: HttpRequest,
    org: Organization,
    *,
    profile_form: ProfileForm | None = None,
    document_form: DocumentForm | None = None,
) -> HttpResponse:
    is_admin = is_member_admin(org=org, user=user_of(request))
    documents = list(selectors.documents_for(org=org))
    return render(
        request,
        "suppliers/profile.html",
        {
            "org": org,
            "profile": selectors.profile_for(org=org),
            "is_admin": is_admin,
            "profile_form": profile_form or ProfileForm(instance=selectors.profile_for(org=org)),
            "document_form": document_form or DocumentForm(),
            "documents": document_rows(documents, "suppliers:document-download"),
        },
    )


@org_required(OrgKind.PROVIDER)
@require_POST
def document_add(request: HttpRequest) -> HttpResponse:
    org = _org(request)
    if not is_member_admin(org=org, user=user_of(request)):
        raise PermissionDenied
    form = DocumentForm(request.POST, request.FILES)
    if form.is_valid():
        data = form.cleaned_data
        try:
            document = services.document_add(
                org=org,
                user=user_of(request),
                doc_type=data["doc_type"],
                issuer=data["issuer"],
                issued_on=data["issued_on"],
                expires_on=data["expires_on"],
                upload=data["file"],
            )
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(request, f"{document.get_doc_type_display()} filed.")
            return redirect(reverse("suppliers:profile") + "#documents")
    # The page again with what was typed (the file must be chosen again) and the errors.
    return _page(request, org, document_form=form)


def document_response(document: ComplianceDocument) -> FileResponse:
    return FileResponse(
        document.file.open("rb"),
        as_attachment=True,
        filename=safe_filename(document.original_name, ComplianceDocument.FALLBACK_NAME),
        content_type=document.content_type or "application/octet-stream",
    )


@org_required(OrgKind.PROVIDER)
def document_download(request: HttpRequest, pk: int) -> FileResponse:
    return document_response(selectors.document_get(org=active_org(request), pk=pk))


@org_required(OrgKind.PROVIDER)
@require_POST
def document_remove(request: HttpRequest, pk: int) -> HttpResponse:
    document = selectors.document_get(org=active_org(request), pk=pk)
    try:
        services.document_remove(document=document, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, f"{document.get_doc_type_display()} removed.")
    return redirect(reverse("suppliers:profile") + "#documents")
