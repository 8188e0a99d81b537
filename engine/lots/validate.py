"""Reading the stored JSON into records, and the checks with their human messages.

Every message names the lot or the bundle (by its position, from 1) it is about."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from .model import (
    BUNDLE_KINDS,
    DISCOUNT,
    MAX_DISCOUNT_PCT,
    MAX_TOTAL,
    Bundle,
    LotOffer,
    LotSpec,
)


class LotInputError(ValueError):
    """Stored or sent lot data that cannot be read; `messages` says what, one line each."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__("; ".join(messages))
        self.messages = messages


def _whole(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _decimal(value: Any) -> Decimal | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def read_offers(raw: Any) -> list[LotOffer]:
    """`[{"lot": 1, "price_per_gpu_hour": "2.10", "nodes": 32}, ...]` → offers."""
    if not isinstance(raw, list):
        raise LotInputError(["Lot offers must be a list of {lot, price_per_gpu_hour, nodes}."])
    offers: list[LotOffer] = []
    problems: list[str] = []
    for i, row in enumerate(raw, start=1):
        where = f"Lot offer {i}"
        if not isinstance(row, Mapping):
            problems.append(f"{where}: give lot, price_per_gpu_hour and nodes.")
            continue
        lot, nodes = _whole(row.get("lot")), _whole(row.get("nodes"))
        price = _decimal(row.get("price_per_gpu_hour"))
        if lot is None:
            problems.append(f"{where}: give the lot's number.")
        if price is None:
            problems.append(f"{where}: give a price per GPU-hour as a number.")
        if nodes is None:
            problems.append(f"{where}: give the nodes offered as a whole number.")
        if lot is not None and price is not None and nodes is not None:
            offers.append(LotOffer(lot=lot, price_per_gpu_hour=price, nodes=nodes))
    if problems:
        raise LotInputError(problems)
    return offers


def _read_bundle(where: str, row: Any, problems: list[str]) -> Bundle | None:
    if not isinstance(row, Mapping):
        problems.append(f"{where}: give its kind and what it applies to.")
        return None
    kind = row.get("kind")
    if kind not in BUNDLE_KINDS:
        problems.append(f"{where}: unknown kind {kind!r}; use {', '.join(BUNDLE_KINDS)}.")
        return None
    if kind == MAX_TOTAL:
        gpus = _whole(row.get("max_gpus"))
        if gpus is None:
            problems.append(f"{where}: give the maximum GPUs as a whole number.")
            return None
        return Bundle(kind=kind, max_gpus=gpus)
    lots_raw = row.get("lots")
    lots = [_whole(n) for n in lots_raw] if isinstance(lots_raw, list) else [None]
    if not lots or any(n is None for n in lots):
        problems.append(f"{where}: give the lots it covers as a list of lot numbers.")
        return None
    pct = None
    if kind == DISCOUNT:
        pct = _decimal(row.get("discount_pct"))
        if pct is None:
            problems.append(f"{where}: give the discount in per cent as a number.")
            return None
    return Bundle(kind=kind, lots=tuple(n for n in lots if n is not None), discount_pct=pct)


def read_bundles(raw: Any) -> list[Bundle]:
    """`[{"kind": "discount", "lots": [1, 2], "discount_pct": "4"}, ...]` → bundles."""
    if not isinstance(raw, list):
        raise LotInputError(["Bundle conditions must be a list."])
    bundles: list[Bundle] = []
    problems: list[str] = []
    for i, row in enumerate(raw, start=1):
        bundle = _read_bundle(f"Bundle {i}", row, problems)
        if bundle is not None:
            bundles.append(bundle)
    if problems:
        raise LotInputError(problems)
    return bundles


def _offer_problem(offer: LotOffer, lot: LotSpec) -> str | None:
    where = f"Lot {lot.number}"
    if offer.price_per_gpu_hour <= 0:
        return f"{where}: the price per GPU-hour must be above 0."
    if offer.nodes < 1:
        return f"{where}: offer at least one node, or leave the lot out."
    if offer.nodes > lot.nodes:
        return f"{where}: {offer.nodes} nodes offered, but the lot asks for {lot.nodes}."
    if not lot.divisible and offer.nodes != lot.nodes:
        return f"{where} is indivisible: offer all {lot.nodes} nodes, or leave it out."
    if offer.nodes < lot.smallest_block_nodes:
        return f"{where}: offer at least {lot.smallest_block_nodes} nodes, its minimum block."
    return None


def offer_errors(offers: Sequence[LotOffer], lots: Sequence[LotSpec]) -> list[str]:
    by_number = {lot.number: lot for lot in lots}
    problems, seen = [], set()
    for offer in offers:
        lot = by_number.get(offer.lot)
        if lot is None:
            problems.append(f"There is no lot {offer.lot} in this request.")
        elif offer.lot in seen:
            problems.append(f"Lot {offer.lot} is offered twice; give one offer per lot.")
        elif (problem := _offer_problem(offer, lot)) is not None:
            problems.append(problem)
        seen.add(offer.lot)
    return problems


def _covered_lots_problem(
    where: str, bundle: Bundle, lots: Mapping[int, LotSpec], offered: set[int]
) -> str | None:
    unknown = [n for n in bundle.lots if n not in lots]
    if unknown:
        return f"{where}: there is no lot {unknown[0]} in this request."
    if len(set(bundle.lots)) < 2:
        return f"{where}: name at least two different lots."
    missing = [n for n in bundle.lots if n not in offered]
    if missing:
        return f"{where}: you make no offer on lot {missing[0]}."
    return None


def _max_total_problem(
    where: str, bundle: Bundle, offers: Sequence[LotOffer], lots: Mapping[int, LotSpec]
) -> str | None:
    blocks = [
        (lots[o.lot].smallest_block_nodes * lots[o.lot].gpus_per_node, o.lot)
        for o in offers
        if o.lot in lots
    ]
    if not blocks or bundle.max_gpus is None:
        return f"{where}: a maximum total needs at least one lot offer."
    smallest, lot = min(blocks)
    if bundle.max_gpus < smallest:
        return (
            f"{where}: a maximum of {bundle.max_gpus:,} GPUs is below the smallest block you "
            f"offer ({smallest:,} GPUs on lot {lot})."
        )
    return None


def bundle_errors(
    bundles: Sequence[Bundle], offers: Sequence[LotOffer], lots: Sequence[LotSpec]
) -> list[str]:
    """What is wrong with a bid's bundle conditions, given its offers and the request's lots."""
    if bundles and not lots:
        return ["This request has no lots: bundle conditions need lots to bid on."]
    by_number = {lot.number: lot for lot in lots}
    offered = {o.lot for o in offers}
    problems: list[str] = []
    if sum(b.kind == MAX_TOTAL for b in bundles) > 1:
        problems.append("Give at most one maximum total.")
    for i, bundle in enumerate(bundles, start=1):
        where = f"Bundle {i}"
        if bundle.kind == MAX_TOTAL:
            problem = _max_total_problem(where, bundle, offers, by_number)
        else:
            problem = _covered_lots_problem(where, bundle, by_number, offered)
        pct = bundle.discount_pct
        if (
            problem is None
            and bundle.kind == DISCOUNT
            and pct is not None
            and not 0 < pct <= MAX_DISCOUNT_PCT
        ):
            problem = (
                f"{where}: a discount must be above 0 and at most {MAX_DISCOUNT_PCT} %, "
                f"not {pct:g} %."
            )
        if problem is not None:
            problems.append(problem)
    return problems
