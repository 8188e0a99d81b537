"""The fixture page's reference runs: the buyer attaches one; everyone who sees the fixture reads
it and downloads the file."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from acceptance.models import FixtureReference, ReferenceSource
from acceptance.selectors import fixtures as selectors
from acceptance.services.reference import fixture_reference_upload
from bids import selectors as bid_selectors
from core.uploads import NamedFileField
from core.web import errors_into_form
from orgs.access import active_org, org_required, user_of
from orgs.choices import OrgKind


class ReferenceForm(forms.Form):
    source = forms.ChoiceField(
        choices=ReferenceSource.choices,
        initial=ReferenceSource.CPU_DRY_RUN,
        widget=forms.RadioSelect,
        label="What it is",
    )
    cluster = forms.CharField(
        required=False,
        max_length=200,
        label="Cluster",
        help_text="For a run on another cluster: its site or provider.",
    )
    file = NamedFileField(
        label="Fixture output",
        help_text="The JSON lines fixture_allreduce.py printed, one per worker.",
    )


@org_required(OrgKind.BUYER)
@require_POST
def reference_upload(request: HttpRequest, pk: int) -> HttpResponse:
    req = bid_selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    fixture = selectors.fixture_for_request(capacity_request=req)
    if fixture is None:
        raise Http404
    version = selectors.fixture_current_version(fixture=fixture)
    form = ReferenceForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            fixture_reference_upload(
                version=version,
                user=user_of(request),
                upload=form.cleaned_data["file"],
                source=form.cleaned_data["source"],
                cluster=form.cleaned_data["cluster"],
            )
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            return redirect(reverse("acceptance:fixture-detail", args=[req.pk]) + "#references")
    return render(
        request,
        "acceptance/reference_form.html",
        {"req": req, "version": version, "form": form},
        status=400,
    )


@org_required()
def reference_download(request: HttpRequest, pk: int) -> FileResponse:
    ref = (
        FixtureReference.objects.select_related("fixture_version__fixture__lot")
        .filter(pk=pk)
        .first()
    )
    if ref is None:
        raise Http404
    # The fixture's own rule: whoever may read the request may read its fixture.
    bid_selectors.request_get_for_org(
        org=active_org(request), pk=ref.fixture_version.fixture.capacity_request.pk
    )
    return FileResponse(
        ref.file.open("rb"),
        as_attachment=True,
        filename=ref.original_name,
        content_type="text/plain; charset=utf-8",
    )
