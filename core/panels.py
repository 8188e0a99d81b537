"""Panels and links that a higher app shows on a lower app's page.

A lower page names a slot ("bids.request_detail") and includes whatever templates are registered
for it, with its own context; the higher app registers a template it owns from its
AppConfig.ready(). So no lower template names a higher app's template, tag library or URL
(tests/config/test_template_layers.py). Each slot's docstring in SLOTS says which context
variables its templates may read.
"""

from __future__ import annotations

SLOTS: dict[str, str] = {
    "bids.request_detail": "Cards under a request's terms: req, active_org, own_bid.",
    "bids.request_bid_actions": "Buttons above the buyer's bid table: req.",
    "bids.bid_detail": "Cards under a bid's terms: bid, active_org.",
    "bids.bid_form_refused": "Where to fix a refused submit's problems that name no field of the "
    "bid form: bid, refused_keys (the refusals' names, e.g. answers.<question key>).",
    "bids.bid_awarded": "The awarded card's way onward: bid.",
    "orgs.members": "Cards under the members page: org.",
    "contracts.provider_owners": "The terms page's provider owners <dd>: req, terms, active_org.",
    "acceptance.reservation_detail": "Cards on a reservation's page: reservation, is_buyer.",
    "incidents.ticket_links": "Ways to download an incident's ticket: incident.",
    "delivery.reservation_links": "Pages that read delivery further: reservation.",
    "acceptance.run_upload": "Other ways to upload a burn-in run's evidence: run, open, request.",
    "provider_links": "Links beside a provider's name: provider_id, provider_name.",
}

_registered: dict[str, list[tuple[int, str]]] = {slot: [] for slot in SLOTS}


def register(slot: str, template: str, *, order: int = 50) -> None:
    """Show template in slot; a lower order comes first. Registering twice changes nothing."""
    entries = _registered[slot]  # an unknown slot is a typo: KeyError at start-up
    if all(name != template for _, name in entries):
        entries.append((order, template))
        entries.sort()


def templates_for(slot: str) -> list[str]:
    return [name for _, name in _registered[slot]]
