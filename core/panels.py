"""Panels and links that a higher app shows on a lower app's page.

A lower page names a slot ("bids.request_detail") and includes whatever templates are registered
for it, with its own context; the higher app registers a template it owns from its
AppConfig.ready(). So no lower template names a higher app's template, tag library or URL
(tests/config/test_template_layers.py). Each slot's docstring in SLOTS says which context
variables its templates may read.

A slot printed once per row of a long table (the comparison's 200 column heads) may take a
renderer instead: a plain function of the same context that returns escaped HTML (format_html),
which costs a fraction of a template render.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.template.loader import get_template

SLOTS: dict[str, str] = {
    "bids.request_detail": "Cards under a request's terms: req, active_org, own_bid.",
    "bids.request_bid_actions": "Buttons above the buyer's bid table: req.",
    "bids.bid_detail": "Cards under a bid's terms: bid, active_org.",
    "bids.bid_form_refused": "Where to fix a refused submit's problems that name no field of the "
    "bid form: bid, refused_keys (the refusals' names, e.g. answers.<question key>).",
    "bids.bid_awarded": "The awarded card's way onward: bid.",
    "orgs.members": "Cards under the members page: org.",
    "contracts.provider_owners": "The terms page's provider owners <dd>: req, terms, active_org.",
    "acceptance.reservation_detail": "Cards on a reservation's page: reservation, is_buyer, "
    "panel_forms (a card's refused form, bound, under the card's own key, to show as typed).",
    "incidents.ticket_links": "Ways to download an incident's ticket: incident.",
    "delivery.reservation_links": "Pages that read delivery further: reservation.",
    "acceptance.run_upload": "Other ways to upload a burn-in run's evidence: run, open, request.",
    "provider_links": "Links beside a provider's name, once per bid of a comparison (renderers "
    "suit it): provider_id, provider_name.",
}

Renderer = Callable[[dict[str, Any]], str]
"""A slot's context → the entry's HTML, every value interpolated escaped (format_html)."""

_registered: dict[str, list[tuple[int, str, str | Renderer]]] = {slot: [] for slot in SLOTS}


def register(slot: str, template: str, *, order: int = 50) -> None:
    """Show template in slot; a lower order comes first. Registering twice changes nothing."""
    _add(slot, template, template, order)


def register_renderer(slot: str, renderer: Renderer, *, order: int = 50) -> None:
    """Show what renderer returns in slot, ordered as register() orders templates."""
    _add(slot, f"{renderer.__module__}.{renderer.__qualname__}", renderer, order)


def _add(slot: str, key: str, entry: str | Renderer, order: int) -> None:
    entries = _registered[slot]  # an unknown slot is a typo: KeyError at start-up
    if all(known != key for _, known, _ in entries):
        entries.append((order, key, entry))
        entries.sort(key=lambda item: item[:2])


def templates_for(slot: str) -> list[str]:
    """For `{% include %}`: a slot that holds a renderer is read with renderers_for instead."""
    names = [entry for _, _, entry in _registered[slot] if isinstance(entry, str)]
    if len(names) != len(_registered[slot]):
        raise TypeError(f"{slot} holds renderers: read it with renderers_for()")
    return names


def renderers_for(slot: str) -> list[Renderer]:
    """Every entry of slot as a function of its context: a template's render, or the renderer."""
    return [
        get_template(entry).render if isinstance(entry, str) else entry
        for _, _, entry in _registered[slot]
    ]
