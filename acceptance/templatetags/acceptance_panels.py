"""Panels other pages include: fixture and terms on a request, acknowledgement on a bid, and
the incident owners providers named when acknowledging (on the terms page), and a bid's pilot."""

from __future__ import annotations

from typing import Any

from django import template

from acceptance.models import Pilot
from acceptance.selectors import fixtures as selectors
from acceptance.selectors.lot_parts import lot_acknowledgements, lot_part_rows, offered_lot_numbers
from bids import selectors as bid_selectors
from bids.lifecycle import REQUEST, request_actor
from bids.models import Bid, CapacityRequest
from contracts import selectors as terms_selectors
from orgs.models import Organization

register = template.Library()


@register.inclusion_tag("acceptance/_request_fixture_panel_body.html", takes_context=True)
def request_fixture_panel(
    context: dict[str, Any], req: CapacityRequest, org: Organization | None
) -> dict[str, Any]:
    fixture = selectors.fixture_for_request(capacity_request=req)
    terms = terms_selectors.terms_for_request(capacity_request=req)
    actor = request_actor(req, context["request"].user)
    panel: dict[str, Any] = {
        "req": req,
        "org": org,
        # The request's 'prepare' move: may this user attach or change the fixture and terms?
        "may_prepare": REQUEST.decide(req, "prepare", actor=actor).allowed,
        "fixture": fixture,
        "version": selectors.fixture_current_version(fixture=fixture) if fixture else None,
        "terms": terms,
        "severities": terms_selectors.severity_rows(terms=terms) if terms else [],
        "lot_rows": lot_part_rows(capacity_request=req),
    }
    if org is not None and org.is_buyer:
        panel["ack_rows"] = selectors.acknowledgement_rows_for_buyer(capacity_request=req)
    elif org is not None:
        bid = bid_selectors.own_bid(capacity_request=req, org=org)
        panel["own_bid"] = bid
        panel["state"] = selectors.acknowledgement_state(bid=bid) if bid else None
    return panel


@register.inclusion_tag("acceptance/_bid_ack_panel_body.html")
def bid_ack_panel(bid: Bid, org: Organization | None) -> dict[str, Any]:
    return {
        "bid": bid,
        # Each lot with its own fixture or terms: the bid's newest acknowledgement of it, and
        # whether the bid offers on it (only those hold up its submit).
        "lot_states": lot_acknowledgements(bid=bid),
        "offered_lots": offered_lot_numbers(bid),
        "is_owner": org is not None and bid.provider_id == org.pk,
        "state": selectors.acknowledgement_state(bid=bid),
        "has_fixture": selectors.fixture_for_request(capacity_request=bid.request) is not None,
        "has_terms": terms_selectors.terms_for_request(capacity_request=bid.request) is not None,
    }


@register.inclusion_tag("acceptance/_provider_owners.html")
def provider_owners(req: CapacityRequest, terms: Any, org: Organization | None) -> dict[str, Any]:
    return {"terms": terms, "owners": selectors.provider_owners(capacity_request=req, org=org)}


@register.inclusion_tag("acceptance/pilot/_bid_pilot_panel_body.html")
def bid_pilot_panel(bid: Bid, org: Organization | None) -> dict[str, Any]:
    """The bid's pilot, for its provider and its buyer (the bid page has checked who reads)."""
    pilot = Pilot.objects.filter(bid=bid).first() if org is not None else None
    return {"pilot": pilot}
