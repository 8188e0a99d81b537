from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from bids import selectors as bid_selectors
from contracts import selectors, services
from contracts.defaults import terms_templates
from contracts.forms import HandoffTermsForm, TermsTemplateForm
from core.web import errors_into_form
from orgs.access import active_org, org_required, user_of
from orgs.choices import OrgKind


@org_required()
def terms_detail(request: HttpRequest, pk: int) -> HttpResponse:
    org = active_org(request)
    req = bid_selectors.request_get_for_org(org=org, pk=pk)
    terms = selectors.terms_for_request(capacity_request=req)
    context: dict[str, object] = {"req": req, "terms": terms}
    if terms is not None:
        context.update(
            severities=selectors.severity_rows(terms=terms),
            revisions=selectors.terms_revision_list(terms=terms),
        )
    return render(request, "contracts/terms_detail.html", context)


@org_required(OrgKind.BUYER)
def terms_create(request: HttpRequest, pk: int) -> HttpResponse:
    req = bid_selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    existing = selectors.terms_for_request(capacity_request=req)
    form = TermsTemplateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.terms_create(
                capacity_request=req, user=user_of(request), template=form.cleaned_data["template"]
            )
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(request, "Handoff terms set from the template. Adjust any field.")
            return redirect("contracts:terms-edit", pk=req.pk)
    return render(
        request,
        "contracts/terms_template_form.html",
        {"req": req, "form": form, "templates": terms_templates(), "existing": existing},
    )


@org_required(OrgKind.BUYER)
def terms_edit(request: HttpRequest, pk: int) -> HttpResponse:
    req = bid_selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    terms = selectors.terms_for_request(capacity_request=req)
    if terms is None:
        raise Http404
    form = HandoffTermsForm(request.POST or None, instance=terms)
    if request.method == "POST" and form.is_valid():
        data = {name: form.cleaned_data[name] for name in form.Meta.fields}
        # The form wrote into `terms`; the service reloads it and applies the data itself.
        try:
            saved = services.terms_update(terms=terms, user=user_of(request), data=data)
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            if saved.version == terms.version:
                messages.info(request, f"Nothing changed; version {saved.version} stays current.")
            else:
                messages.success(request, f"Handoff terms saved (version {saved.version}).")
            return redirect("contracts:terms-detail", pk=req.pk)
    return render(request, "contracts/terms_form.html", {"req": req, "form": form, "terms": terms})
