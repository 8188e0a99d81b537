"""The buyer's lot form, and the lot offers and bundle conditions on the provider's bid form."""

from __future__ import annotations

from typing import Any

from django import forms
from django.template.defaultfilters import pluralize

from bids.lots import LotTerms
from bids.models import Lot
from bids.models.lots import LOT_FIELDS
from core.forms import bounds_from_model
from engine.lots import BUNDLE_KINDS, DISCOUNT, MAX_TOTAL

DATE = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")


class LotForm(forms.ModelForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        bounds_from_model(self)

    class Meta:
        model = Lot
        fields = list(LOT_FIELDS)
        widgets = {"reservation_start": DATE, "reservation_end": DATE}

    def _post_clean(self) -> None:
        # The service checks the lot against its request (`validate_lot`) and words the errors.
        pass


BUNDLE_CHOICES = [
    ("", "—"),
    *[(kind, kind.replace("_", " ").capitalize()) for kind in BUNDLE_KINDS],
]
BUNDLE_HELP = (
    "All or nothing: only together with all the lots named. Discount: the per cent off those "
    "lots if you are awarded all of them. Max total: at most this many GPUs across all lots."
)


class LotOffersForm(forms.Form):
    """One price and node count per lot, and a few bundle rows; a blank row is no offer.

    What it cleans is the raw JSON the bid stores; the service (engine.lots) checks it and
    words each problem by lot and bundle number."""

    prefix = "lots"

    def __init__(self, *args: Any, lots: list[Lot], terms: LotTerms, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lots = lots
        for lot in lots:
            offer = terms.offer_for(lot.number)
            self.fields[f"lot_{lot.number}_price"] = forms.DecimalField(
                label=f"Lot {lot.number}: price per GPU-hour (USD)",
                required=False,
                min_value=0,
                decimal_places=3,
                initial=offer.price_per_gpu_hour if offer else None,
            )
            nodes = f"{lot.nodes} node{pluralize(lot.nodes)}"
            split = (
                f"at least {lot.min_block_nodes}, at most {nodes}"
                if lot.divisible
                else f"indivisible, so all {nodes}"
            )
            self.fields[f"lot_{lot.number}_nodes"] = forms.IntegerField(
                label=f"Lot {lot.number}: nodes offered",
                required=False,
                min_value=0,
                initial=offer.nodes if offer else None,
                help_text=f"{lot.name}: {split}. Leave both empty to make no offer on it.",
            )
        rows = [bundle.to_json() for bundle in terms.bundles]
        for i in range(1, max(3, len(rows) + 1) + 1):
            row = rows[i - 1] if i <= len(rows) else {}
            amount = row.get("discount_pct") if row.get("kind") == DISCOUNT else row.get("max_gpus")
            self.fields[f"bundle_{i}_kind"] = forms.ChoiceField(
                label=f"Bundle {i}",
                choices=BUNDLE_CHOICES,
                required=False,
                initial=row.get("kind", ""),
                help_text=BUNDLE_HELP if i == 1 else "",
            )
            self.fields[f"bundle_{i}_lots"] = forms.CharField(
                label=f"Bundle {i}: lots",
                required=False,
                initial=", ".join(str(n) for n in row.get("lots", [])),
                help_text="Lot numbers, e.g. 1, 2 (not for a max total).",
            )
            self.fields[f"bundle_{i}_amount"] = forms.CharField(
                label=f"Bundle {i}: discount % or max GPUs",
                required=False,
                initial="" if amount is None else str(amount),
            )
        self.bundle_rows = max(3, len(rows) + 1)

    def offer_fields(self) -> list[forms.BoundField]:
        return [
            self[f"lot_{lot.number}_{part}"] for lot in self.lots for part in ("price", "nodes")
        ]

    def bundle_fields(self) -> list[list[forms.BoundField]]:
        return [
            [self[f"bundle_{i}_{part}"] for part in ("kind", "lots", "amount")]
            for i in range(1, self.bundle_rows + 1)
        ]

    def lot_data(self) -> dict[str, list[dict[str, Any]]]:
        """The bid's `lot_offers` and `bundles` as typed, for the service to check."""
        data = self.cleaned_data
        offers = []
        for lot in self.lots:
            price, nodes = data.get(f"lot_{lot.number}_price"), data.get(f"lot_{lot.number}_nodes")
            if price is None and nodes is None:
                continue
            offers.append({"lot": lot.number, "price_per_gpu_hour": price, "nodes": nodes})
        bundles = []
        for i in range(1, self.bundle_rows + 1):
            kind = data.get(f"bundle_{i}_kind")
            if not kind:
                continue
            amount = (data.get(f"bundle_{i}_amount") or "").strip()
            if kind == MAX_TOTAL:
                bundles.append({"kind": kind, "max_gpus": amount})
                continue
            numbers = [n.strip() for n in (data.get(f"bundle_{i}_lots") or "").split(",")]
            row: dict[str, Any] = {"kind": kind, "lots": [n for n in numbers if n]}
            if kind == DISCOUNT:
                row["discount_pct"] = amount
            bundles.append(row)
        return {"lot_offers": offers, "bundles": bundles}
