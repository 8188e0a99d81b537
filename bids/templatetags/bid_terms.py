from __future__ import annotations

from datetime import date
from typing import Any, cast

from django import template
from django.db.models import Field
from django.utils.formats import date_format
from django.utils.text import capfirst

from bids.forms import BID_FIELDSETS, OFFER_KIND_FIELDSET
from bids.models import BidTerms
from engine.lots import LotInputError, describe_bundle, read_bundles, read_offers

register = template.Library()


def _field(name: str) -> Field[Any, Any]:
    return cast("Field[Any, Any]", BidTerms._meta.get_field(name))


def _display(obj: BidTerms, name: str) -> str:
    field = _field(name)
    value = getattr(obj, name)
    if getattr(field, "choices", None):
        return str(getattr(obj, f"get_{name}_display")()) if value else "—"
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, date):
        return date_format(value, "j M Y")  # as every other page prints a date, not ISO
    return str(value)


@register.simple_tag
def terms_sections(obj: BidTerms) -> list[tuple[str, list[tuple[str, str]]]]:
    """The bid's terms grouped as on the form, ready to print."""
    sections = []
    for title, names in BID_FIELDSETS:
        rows = [(capfirst(str(_field(name).verbose_name)), _display(obj, name)) for name in names]
        if title == OFFER_KIND_FIELDSET:
            rows += offer_kind_rows(obj)
        sections.append((title, rows))
    return sections


def offer_kind_rows(obj: BidTerms) -> list[tuple[str, str]]:
    """What a slice is worth on the one scale all kinds compare on."""
    kind = obj.offer_kind
    if kind is None:
        return [("Whole-device equivalent", "— (give the MIG profile or the replicas)")]
    rows = [
        ("Whole-device equivalent", f"{kind.fraction} of a GPU per slice"),
        ("Isolation", kind.isolation),
    ]
    if kind.price_per_device_hour is not None:
        rows += [
            ("Price per slice-hour (USD)", str(kind.price_per_slice_hour)),
            ("Price per whole-device-equivalent hour (USD)", str(kind.price_per_device_hour)),
        ]
    return rows


@register.filter
def get_item(mapping: dict[str, Any], key: str) -> Any:
    return mapping.get(key)


@register.simple_tag
def lot_lines(obj: BidTerms) -> dict[str, list[str]]:
    """The offers per lot and the bundle conditions in words; empty on a request without lots."""
    try:
        offers, bundles = read_offers(obj.lot_offers or []), read_bundles(obj.bundles or [])
    except LotInputError:  # only checked offers are stored; a hand-edited row prints nothing
        return {"offers": [], "bundles": []}
    return {
        "offers": [
            f"Lot {o.lot}: {o.nodes} node{'s' if o.nodes != 1 else ''} at "
            f"${o.price_per_gpu_hour} per GPU-hour"
            for o in offers
        ],
        "bundles": [describe_bundle(b) for b in bundles],
    }
