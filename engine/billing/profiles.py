"""The exports clouds and neoclouds write, each recognised by its headers: which column holds
which of our fields, which lines are usage and which are tax, credit, discount, refund or fee,
and what a usage line meters (GPU-hours, instance-hours, egress, something else).

Each profile cites where its layout is documented. A file no profile recognises falls back to
the generic header guess of `mapping.guess_mapping`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.billing.aws import is_capacity_block_fee, usage_meter
from engine.billing.charges import (
    ADJUSTMENT,
    CREDIT,
    DISCOUNT,
    FEE,
    PURCHASE,
    REFUND,
    TAX,
    USAGE,
    Profile,
    Row,
)
from engine.billing.charges import cell_low as _low
from engine.billing.charges import cell_text as _text
from engine.billing.covers import AZURE_COVERS, aws_cover
from engine.billing.focus_layout import FOCUS
from engine.billing.localized import MONTH_FIRST
from engine.billing.mapping import GPU_MINUTES, guess_mapping
from engine.billing.mapping import _key as header_key
from engine.billing.meters import EGRESS, OTHER, PER_GPU, PER_INSTANCE, Meter, network_meter
from engine.billing.oci import OCI


def _keywords(text: str) -> str:
    """A charge class from an invoice's own words (neocloud and generic files)."""
    text = text.lower()
    for pattern, charge in (
        (r"\b(tax|vat|gst|hst)\b", TAX),
        (r"discount|promo", DISCOUNT),
        (r"credit", CREDIT),
        (r"refund", REFUND),
        (r"\b(fee|fees|support|setup|other)\b", FEE),
    ):
        if re.search(pattern, text):
            return charge
    return USAGE


# -- AWS CUR 2.0 -----------------------------------------------------------------------------

_AWS_CHARGES = {
    "usage": USAGE,
    "discountedusage": USAGE,  # covered by a reserved instance: usage, priced by the RI
    "savingsplancoveredusage": USAGE,
    "tax": TAX,
    "credit": CREDIT,
    "refund": REFUND,
    "fee": FEE,
    # What a reserved instance or a savings plan costs each month, bought ahead of its use:
    # listed apart as a purchase, since every usage line it covers carries its share as its
    # effective cost (`_aws_effective`), and counting both would bill the hours twice.
    "rifee": PURCHASE,
    "savingsplanrecurringfee": PURCHASE,
    "savingsplanupfrontfee": PURCHASE,
}


def _aws_charge(row: Row) -> str:
    kind = _low(row, "charge")
    usage_type = row.get("meter")  # the cell as read: a CUR asks this of every line
    if isinstance(usage_type, str) and is_capacity_block_fee(usage_type):
        return PURCHASE  # a Capacity Block, paid upfront: see aws.py
    if _low(row, "capacity_status") == "unused" or (
        isinstance(usage_type, str) and "UnusedBox" in usage_type
    ):
        # Capacity reserved and not run in (`UnusedBox:p5.48xlarge`, on the reservation's id,
        # not an instance's): bought ahead by the account, as a commitment's unused part is.
        return PURCHASE
    if kind in _AWS_CHARGES:
        return _AWS_CHARGES[kind]
    return DISCOUNT if "discount" in kind or "negation" in kind else ADJUSTMENT


# A reserved instance's hours bill 0.00 (DiscountedUsage), a savings plan's their on-demand cost
# (SavingsPlanCoveredUsage, negated on another line): what each cost is in its effective-cost
# column (https://docs.aws.amazon.com/cur/latest/userguide/cur-ri.html, …/cur-sp.html).
_AWS_COVERED = {"discountedusage": "ri_effective", "savingsplancoveredusage": "sp_effective"}


def _aws_meter(row: Row, timed: bool) -> Meter:
    known = usage_meter(
        usage_type=_text(row.get("meter")),  # e.g. "USE1-BoxUsage:p5.48xlarge"
        instance_type=_text(row.get("instance_type")),
        timed=timed,
    )
    return known or Meter(OTHER)


AWS_CUR2 = Profile(
    name="aws-cur2",
    label="AWS Cost and Usage Report 2.0 (Data Exports) or legacy CUR",
    # Legacy CUR (still the export many accounts have) names the same columns
    # `lineItem/UsageStartDate`: https://docs.aws.amazon.com/cur/latest/userguide/data-dictionary.html
    source="https://docs.aws.amazon.com/cur/latest/userguide/table-dictionary-cur2.html",
    signature=(
        ("line_item_usage_start_date", "lineItem/UsageStartDate"),
        ("line_item_line_item_type", "lineItem/LineItemType"),
        ("line_item_unblended_cost", "lineItem/UnblendedCost"),
    ),
    columns={
        "period_start": ("line_item_usage_start_date", "lineItem/UsageStartDate"),
        "period_end": ("line_item_usage_end_date", "lineItem/UsageEndDate"),
        "node": ("line_item_resource_id", "lineItem/ResourceId"),
        "instance_type": ("product_instance_type", "product/instanceType"),
        "quantity": ("line_item_usage_amount", "lineItem/UsageAmount"),
        "unit": ("pricing_unit", "pricing/unit"),
        "rate": ("line_item_unblended_rate", "lineItem/UnblendedRate"),
        "amount": ("line_item_unblended_cost", "lineItem/UnblendedCost"),
        "currency": ("line_item_currency_code", "lineItem/CurrencyCode"),
        "charge": ("line_item_line_item_type", "lineItem/LineItemType"),
        "meter": ("line_item_usage_type", "lineItem/UsageType"),
        "service": ("line_item_product_code", "lineItem/ProductCode"),
        "ri_effective": ("reservation_effective_cost", "reservation/EffectiveCost"),
        "sp_effective": (
            "savings_plan_savings_plan_effective_cost",
            "savingsPlan/SavingsPlanEffectiveCost",
        ),
        "capacity_status": ("capacity_reservation_capacity_reservation_status",),
        "capacity_type": ("capacity_reservation_capacity_reservation_type",),
    },
    charge=_aws_charge,
    meter=_aws_meter,
    effective=lambda row: _AWS_COVERED.get(_low(row, "charge")),
    cover=aws_cover,
)


# -- Google Cloud billing export --------------------------------------------------------------


def _gcp_charge(row: Row) -> str:
    if _text(row.get("credit")):
        return CREDIT  # the console's cost table puts credits on their own rows
    if _low(row, "meter").startswith("commitment"):
        # "Commitment v1: Nvidia H100 80GB GPU running in Americas for 1 Year": the fee of a
        # committed use discount, bought for the term; the GPU's own hours are billed on the
        # GPU SKU, and the discount comes back on them as COMMITTED_USAGE_DISCOUNT credits.
        return PURCHASE
    kind = _low(row, "charge")
    # BigQuery's cost_type says "regular"; the console's cost table of an invoice "Usage".
    return {"": USAGE, "regular": USAGE, "usage": USAGE, "tax": TAX}.get(kind, ADJUSTMENT)


def _gcp_meter(row: Row, timed: bool) -> Meter:
    sku = _low(row, "meter")  # "Nvidia H100 80GB GPU running in Americas"
    if timed and "gpu" in sku:
        return Meter(PER_GPU)  # Compute Engine bills each attached GPU by the GPU-hour
    # The VM's cores and memory ("A3 Instance Core running in Americas", "A3 Instance Ram …")
    # are billed apart from its GPUs: fees, as the contract's rate is per GPU-hour.
    return Meter(network_meter(sku) or OTHER)


GCP = Profile(
    name="gcp",
    label="Google Cloud billing export (cost table CSV or BigQuery columns)",
    source="https://cloud.google.com/billing/docs/how-to/export-data-bigquery-tables/standard-usage",
    signature=(
        ("SKU description", "sku.description"),
        ("Usage amount", "usage.amount"),
        ("Usage start date", "usage_start_time"),
    ),
    columns={
        "period_start": ("Usage start date", "usage_start_time"),
        "period_end": ("Usage end date", "usage_end_time"),
        "node": ("Resource name", "resource.name", "Resource global name", "resource.global_name"),
        # BigQuery's usage.amount is in usage.unit (a GPU's seconds), its
        # usage.amount_in_pricing_units in usage.pricing_unit (hour): the pair, whichever the
        # query selected, the pricing units first.
        "quantity": ("Usage amount", "usage.amount_in_pricing_units", "usage.amount"),
        "unit": ("Usage unit", "usage.pricing_unit", "usage.unit"),
        "amount": ("Unrounded cost ($)", "Cost ($)", "cost"),
        "currency": ("Currency", "currency"),
        "charge": ("Cost type", "cost_type"),
        "credit": ("Credit type",),
        "meter": ("SKU description", "sku.description"),
        "service": ("Service description", "service.description"),
    },
    charge=_gcp_charge,
    meter=_gcp_meter,
    inclusive_end_date=True,  # an invoice's cost table runs a month 2026-03-01 to 2026-03-31
)

# -- Azure cost details ----------------------------------------------------------------------

_AZURE_CHARGES = {
    "usage": USAGE,
    "purchase": PURCHASE,
    "refund": REFUND,
    "tax": TAX,
    "credit": CREDIT,
    "roundingadjustment": ADJUSTMENT,
    # The part of a reservation or savings plan bought and left unused (the amortized export):
    # no one's GPU time, and no fee of the provider's either; as FOCUS's Unused rows.
    "unusedreservation": PURCHASE,
    "unusedsavingsplan": PURCHASE,
}


def _azure_meter(row: Row, timed: bool) -> Meter:
    category, name = _low(row, "service"), _text(row.get("meter"))
    if timed and category == "virtual machines":
        return Meter(PER_INSTANCE, name)  # the meter names the size: "ND96isr H100 v5"
    network = network_meter(name)
    if network is not None:
        return Meter(network)
    return Meter(EGRESS if category == "bandwidth" else OTHER)


AZURE = Profile(
    name="azure",
    label="Azure cost details (EA or MCA, actual or amortized cost)",
    source="https://learn.microsoft.com/azure/cost-management-billing/automate/understand-usage-details-fields",
    # The older pay-as-you-go usage details (UsageDateTime, UsageQuantity, PreTaxCost) and the
    # Enterprise Agreement's detail report ("Meter Category", "Consumed Quantity", ExtendedCost,
    # spelt with spaces) have no ChargeType: every line of those layouts is usage.
    signature=(
        ("MeterCategory", "Meter Category"),
        ("Quantity", "UsageQuantity", "Consumed Quantity"),
        ("ChargeType", "UsageDateTime", "ExtendedCost"),
    ),
    columns={
        "period_start": ("Date", "UsageDate", "UsageDateTime"),
        "node": ("ResourceId", "InstanceName", "InstanceId", "Instance ID"),
        "meter": ("MeterName", "Meter Name"),
        "service": ("MeterCategory", "Meter Category"),
        "quantity": ("Quantity", "UsageQuantity", "Consumed Quantity"),
        "unit": ("UnitOfMeasure", "Unit Of Measure"),
        "rate": ("EffectivePrice", "UnitPrice", "ResourceRate"),
        "amount": ("CostInBillingCurrency", "Cost", "PreTaxCost", "ExtendedCost"),
        "currency": ("BillingCurrency", "BillingCurrencyCode", "Currency"),
        "charge": ("ChargeType",),
        "exchange": ("ExchangeRatePricingToBilling",),
        "pricing_model": ("PricingModel",),
    },
    charge=lambda row: _AZURE_CHARGES.get(_low(row, "charge") or "usage", ADJUSTMENT),
    meter=_azure_meter,
    # Amortized: the amount is the effective cost (0.00, the actual cost's, is not one).
    effective=lambda row: "amount" if _low(row, "pricing_model") in AZURE_COVERS else None,
    cover=lambda row: AZURE_COVERS.get(_low(row, "pricing_model")),
    date_order=MONTH_FIRST,  # the cost details CSV writes 03/01/2026 for 1 March
    whole_day=True,  # one line per resource and meter per day
)

# -- A neocloud's per-instance invoice ---------------------------------------------------------
# No standard: these are the words neocloud invoices and usage exports use (instance or host,
# type, start, end, hours, GPUs, rate, amount), matched on the header's words.
_NEO: dict[str, tuple[str, ...]] = {
    "period_start": (r"^(usage_|period_)?(start|started|from|begin)(_time|_date|_utc|_at)?$",),
    "period_end": (r"^(usage_|period_)?(end|ended|to|until|stop)(_time|_date|_utc|_at)?$",),
    # A host name is what the contract and the incidents call a node; an instance id is next.
    "node": (
        r"^(hostname|host|node(_id|_name)?)$",
        r"^(instance(_id|_name)?|machine(_id)?|server)$",
    ),
    "instance_type": (r"^(instance_type|machine_type|node_type|plan|flavou?r|configuration)$",),
    "gpus": (r"^(gpus?|gpu_count|num_gpus|gpu_qty|of_gpus)$",),
    "quantity": (r"^(gpu_)?(hours|hrs|minutes|seconds)$|^(billable|instance|usage)_(hours|hrs)$",),
    "rate": (r"^(rate|unit_price|price)(_.*)?$",),
    "amount": (r"^(amount|total|cost|line_total)(_.*)?$",),
    "currency": (r"^currency$",),
    "charge": (r"^(line_type|charge_type|type|category|kind)$",),
    "meter": (r"^(description|item|details|sku)$",),
}


def _words(row: Row) -> str:
    return f"{_low(row, 'charge')} {_low(row, 'meter')}"


def _neo_meter(row: Row, timed: bool) -> Meter:
    network = network_meter(_words(row))
    if network is not None:
        return Meter(network)
    if timed and (_text(row.get("instance_type")) or _text(row.get("gpus"))):
        return Meter(PER_INSTANCE, _text(row.get("instance_type")))
    return Meter(OTHER)


NEOCLOUD = Profile(
    name="neocloud",
    label="Neocloud per-instance invoice (instance, type, hours, GPUs, rate, amount)",
    source="no standard; the common columns of neocloud invoices (see tests/engine/billing/data)",
    signature=(),
    columns={name: tuple(f"~{p}" for p in patterns) for name, patterns in _NEO.items()},
    charge=lambda row: _keywords(_words(row)),
    meter=_neo_meter,
    # "Rate per instance-hour" prices the instance's hours; "Rate ($/GPU-hr)" or a bare "Rate"
    # GPU-hours, the unit the contract and neocloud price lists quote.
    rate_per_gpu_hour=lambda header: (
        not re.search(r"instance|node|server|machine|(^|_)vm", header_key(header))
    ),
)

GENERIC = Profile(
    name="generic",
    label="Other layout (columns guessed from the header words)",
    source="",
    signature=(),
    columns={},
    charge=lambda row: _keywords(_words(row)),
    meter=lambda row, timed: Meter(
        network_meter(_words(row)) or (PER_INSTANCE if timed else OTHER)
    ),
    rate_per_gpu_hour=lambda header: True,  # the generic mapping's rate is per GPU-hour
)

PROFILES: dict[str, Profile] = {
    p.name: p for p in (FOCUS, AWS_CUR2, GCP, AZURE, OCI, NEOCLOUD, GENERIC)
}
_CLOUDS = (FOCUS, AWS_CUR2, GCP, AZURE, OCI)
_KNOWN = {header_key(c) for p in _CLOUDS for cs in p.columns.values() for c in cs}


def is_known_header(text: str) -> bool:
    """Whether a cell's text is a header some profile reads (finds the header row)."""
    key = header_key(text)
    return key in _KNOWN or any(re.search(p, key) for ps in _NEO.values() for p in ps)


@dataclass(frozen=True)
class Proposal:
    """A profile and its columns for one file's headers: our field -> the file's header."""

    profile: Profile
    columns: dict[str, str]
    unit: str = ""  # the quantity's unit when no column gives it (the header, or the guess's)


def _find(candidates: tuple[str, ...], headers: list[str], used: set[str]) -> str | None:
    for candidate in candidates:
        for header in headers:
            key = header_key(header)
            if header in used or not key:
                continue
            if candidate.startswith("~"):
                if re.search(candidate[1:], key):
                    return header
            elif key == header_key(candidate):
                return header
    return None


def _columns(profile: Profile, headers: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, candidates in profile.columns.items():
        hit = _find(candidates, headers, set(found.values()))
        if hit is not None:
            found[name] = hit
    return found


def recognise(*, headers: list[str]) -> Profile:
    """The profile whose signature headers are all present; else the neocloud invoice when a
    node, hours, an amount and GPUs or an instance type are named; else the generic guess."""
    keys = {header_key(h) for h in headers}
    for profile in _CLOUDS:
        if all(any(header_key(c) in keys for c in group) for group in profile.signature):
            return profile
    neo = _columns(NEOCLOUD, headers)
    if {"node", "quantity", "amount"} <= neo.keys() and neo.keys() & {"gpus", "instance_type"}:
        return NEOCLOUD
    return GENERIC


def propose(*, headers: list[str], profile: str | None = None) -> Proposal:
    """The proposed mapping for these headers, under the named profile or the recognised one."""
    chosen = PROFILES[profile] if profile else recognise(headers=headers)
    if chosen is GENERIC:
        guess = guess_mapping(headers)
        columns = {("charge" if f == "line_type" else f): h for f, h in guess.columns.items()}
        unit = "gpu-minutes" if guess.unit == GPU_MINUTES else "hours"
        return Proposal(chosen, columns, unit)
    columns = _columns(chosen, headers)
    return Proposal(chosen, columns, "" if "unit" in columns else columns.get("quantity", "hours"))
