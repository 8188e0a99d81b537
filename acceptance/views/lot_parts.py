"""A lot's own fixture and terms: the page that says which the lot uses, the buyer's choice
(own or the request's) while a draft, the lot fixture's edit form and downloads."""

from __future__ import annotations

import json

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from acceptance import services
from acceptance.bundle import build_bundle
from acceptance.forms.fixtures import FixtureTemplateForm
from acceptance.models import Fixture, FixtureVersion
from acceptance.selectors import fixtures as selectors
from acceptance.selectors import lot_parts
from acceptance.views.fixtures import fixture_edit_page
from bids import selectors as bid_selectors
from bids.lifecycle import REQUEST, request_actor
from bids.lots import lot_get
from bids.models import Lot
from contracts import selectors as terms_selectors
from core.errors import ServiceError
from engine.evidence.fixtures import templates
from orgs.access import active_org, org_required, user_of
from orgs.choices import OrgKind


def _lot(request: HttpRequest, pk: int, number: int, *, buyer: bool = False) -> Lot:
    org = active_org(request)
    get = bid_selectors.request_get_for_buyer if buyer else bid_selectors.request_get_for_org
    return lot_get(capacity_request=get(org=org, pk=pk), number=number)


def _own_fixture_or_404(lot: Lot) -> Fixture:
    fixture = lot_parts.own_fixture(lot)
    if fixture is None:
        raise Http404
    return fixture


@org_required()
def lot_parts_detail(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    lot = _lot(request, pk, number)
    req, org = lot.request, active_org(request)
    fixture, terms = lot_parts.own_fixture(lot), lot_parts.own_terms(lot)
    is_buyer = org is not None and req.buyer_id == org.pk
    own_bid = None
    if org is not None and not is_buyer:
        own_bid = bid_selectors.own_bid(capacity_request=req, org=org)
    ack = None
    if own_bid is not None:
        ack = next((s for s in lot_parts.lot_acknowledgements(bid=own_bid) if s.lot == lot), None)
    lots_move = REQUEST.decide(req, "lots", actor=request_actor(req, user_of(request)))
    return render(
        request,
        "acceptance/lot_parts.html",
        {
            "req": req,
            "lot": lot,
            "fixture": fixture,
            "version": selectors.fixture_current_version(fixture=fixture) if fixture else None,
            "terms": terms,
            # What "shares the request's" means when the request has none yet.
            "request_fixture": selectors.fixture_for_request(capacity_request=req),
            "request_terms": terms_selectors.terms_for_request(capacity_request=req),
            "is_buyer": is_buyer,
            "can_choose": is_buyer and lots_move.allowed,
            "template_form": FixtureTemplateForm(),
            "templates": templates(),
            "own_bid": own_bid,
            "ack": ack,
            "ack_rows": lot_parts.lot_acknowledgement_rows_for_buyer(lot=lot) if is_buyer else [],
        },
    )


def _redirect(lot: Lot) -> HttpResponse:
    return redirect("acceptance:lot-parts", pk=lot.request_id, number=lot.number)


@require_POST
@org_required(OrgKind.BUYER)
def lot_fixture_own(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    lot = _lot(request, pk, number, buyer=True)
    form = FixtureTemplateForm(request.POST)
    template = form.cleaned_data["template"] if form.is_valid() else None
    try:
        version = services.lot_fixture_own(lot=lot, user=user_of(request), template=template)
    except (ServiceError, ValidationError) as exc:
        messages.error(request, " ".join(getattr(exc, "messages", [str(exc)])))
    else:
        messages.success(
            request, f"Lot {lot.number} has its own fixture (version {version.number})."
        )
    return _redirect(lot)


@require_POST
@org_required(OrgKind.BUYER)
def lot_fixture_share(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    lot = _lot(request, pk, number, buyer=True)
    try:
        services.lot_fixture_share(lot=lot, user=user_of(request))
    except ServiceError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Lot {lot.number} shares the request's fixture.")
    return _redirect(lot)


@org_required(OrgKind.BUYER)
def lot_fixture_edit(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    lot = _lot(request, pk, number, buyer=True)
    return fixture_edit_page(
        request,
        _own_fixture_or_404(lot),
        done=_redirect(lot),
        context={"req": lot.request, "lot": lot},
        name=f"Lot {lot.number}'s fixture",
    )


def _version(request: HttpRequest, pk: int, number: int, version: int) -> FixtureVersion:
    lot = _lot(request, pk, number)
    return selectors.fixture_version_get(fixture=_own_fixture_or_404(lot), number=version)


@org_required()
def lot_fixture_json(request: HttpRequest, pk: int, number: int, version: int) -> HttpResponse:
    found = _version(request, pk, number, version)
    body = json.dumps(found.spec, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    name = f"lot{number}-fixture-v{version}.json"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@org_required()
def lot_fixture_bundle(request: HttpRequest, pk: int, number: int, version: int) -> HttpResponse:
    found = _version(request, pk, number, version)
    archive, _manifest = build_bundle(found.spec)
    response = HttpResponse(archive, content_type="application/gzip")
    name = f"clusterbid-lot{number}-fixture-v{version}-{found.spec_sha256[:12]}.tar.gz"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
