from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from acceptance import services
from acceptance.bundle import build_bundle
from acceptance.forms.fixtures import FixtureForm, FixtureTemplateForm
from acceptance.models import Fixture, FixtureVersion
from acceptance.selectors import fixtures as selectors
from acceptance.views.reference import ReferenceForm
from bids import selectors as bid_selectors
from bids.models import CapacityRequest
from core.web import errors_into_form
from engine.evidence.fixtures import templates
from engine.formatting import data_size
from orgs.access import active_org, org_required, user_of
from orgs.choices import OrgKind


def _fixture_or_404(req: CapacityRequest) -> Fixture:
    fixture = selectors.fixture_for_request(capacity_request=req)
    if fixture is None:
        raise Http404
    return fixture


@org_required()
def fixture_detail(request: HttpRequest, pk: int) -> HttpResponse:
    org = active_org(request)
    req = bid_selectors.request_get_for_org(org=org, pk=pk)
    fixture = selectors.fixture_for_request(capacity_request=req)
    is_buyer = org is not None and req.buyer_id == org.pk
    context: dict[str, object] = {
        "req": req,
        "fixture": fixture,
        "is_buyer": is_buyer,
        # Counts tell the buyer of a sealed request, and a rival always, that someone bid.
        "show_acks": is_buyer and not req.bids_hidden_from_buyer,
    }
    if fixture is not None:
        version = selectors.fixture_current_version(fixture=fixture)
        context.update(
            references=selectors.fixture_references(fixture=fixture),
            reference_form=ReferenceForm() if is_buyer else None,
            version=version,
            versions=selectors.fixture_version_list(fixture=fixture),
            thresholds=selectors.threshold_rows(spec=version.spec),
            fabric=selectors.fabric_label(version.spec.get("fabric")),
            record_items=selectors.failure_record_items(spec=version.spec),
            required_files=selectors.required_evidence_items(spec=version.spec),
            sizes={
                "min": data_size(version.spec["tests"]["nccl_tests"]["min_bytes"]),
                "max": data_size(version.spec["tests"]["nccl_tests"]["max_bytes"]),
            },
        )
    return render(request, "acceptance/fixture_detail.html", context)


@org_required(OrgKind.BUYER)
def fixture_create(request: HttpRequest, pk: int) -> HttpResponse:
    req = bid_selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    form = FixtureTemplateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            version = services.fixture_from_template(
                capacity_request=req,
                user=user_of(request),
                template=form.cleaned_data["template"],
                name=form.cleaned_data["name"],
            )
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(request, f"Fixture version {version.number} built from the template.")
            return redirect("acceptance:fixture-detail", pk=req.pk)
    shape = services.request_shape(req)
    return render(
        request,
        "acceptance/fixture_template_form.html",
        {
            "req": req,
            "form": form,
            "templates": templates(),
            "shape": shape,
            "fabric": selectors.fabric_label(shape["fabric"]),
            "existing": selectors.fixture_for_request(capacity_request=req),
        },
    )


def fixture_edit_page(
    request: HttpRequest,
    fixture: Fixture,
    *,
    done: HttpResponse,
    context: dict[str, Any],
    name: str = "Fixture",
) -> HttpResponse:
    """The edit form of a fixture (the request's or a lot's own): on a valid POST, save and say
    what happened (nothing, a new version because providers saw the last, or the same version
    replaced), then `done`; otherwise the form, as typed, with its errors."""
    version = selectors.fixture_current_version(fixture=fixture)
    library = selectors.threshold_library(version.spec)
    form = FixtureForm(request.POST or None, spec=version.spec, library=library)
    if request.method == "POST" and form.is_valid():
        try:
            saved = services.fixture_save(
                fixture=fixture,
                user=user_of(request),
                changes=form.changes(),
                reasons=form.reasons(),
            )
        except ValidationError as exc:
            if hasattr(exc, "error_dict"):
                form.add_spec_errors(exc.message_dict)
            else:
                form.add_error(None, exc.messages)
        else:
            if saved.spec_sha256 == version.spec_sha256:
                messages.info(request, f"Nothing changed; version {saved.number} stays current.")
            elif saved.number != version.number:
                messages.success(
                    request,
                    f"Saved as version {saved.number}: providers have seen version "
                    f"{version.number}, so it stays as it was; a provider who acknowledged it is "
                    "asked to acknowledge again.",
                )
            else:
                messages.success(request, f"{name} version {saved.number} saved.")
            return done
    return render(
        request,
        "acceptance/fixture_form.html",
        {
            **context,
            "form": form,
            "version": version,
            "fixture": fixture,
            "fabric": selectors.fabric_label(version.spec.get("fabric")),
        },
    )


@org_required(OrgKind.BUYER)
def fixture_edit(request: HttpRequest, pk: int) -> HttpResponse:
    req = bid_selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    return fixture_edit_page(
        request,
        _fixture_or_404(req),
        done=redirect("acceptance:fixture-detail", pk=req.pk),
        context={"req": req},
    )


def _version_for(request: HttpRequest, pk: int, number: int) -> FixtureVersion:
    req = bid_selectors.request_get_for_org(org=active_org(request), pk=pk)
    return selectors.fixture_version_get(fixture=_fixture_or_404(req), number=number)


@org_required()
def fixture_json(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    version = _version_for(request, pk, number)
    body = json.dumps(version.spec, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="fixture-v{number}.json"'
    return response


@org_required()
def fixture_bundle(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    version = _version_for(request, pk, number)
    archive, _manifest = build_bundle(version.spec)  # deterministic: same bytes every time
    response = HttpResponse(archive, content_type="application/gzip")
    name = f"clusterbid-fixture-v{number}-{version.spec_sha256[:12]}.tar.gz"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
