"""The FOCUS 1.x profile (FinOps Open Cost and Usage Specification,
https://focus.finops.org/focus-specification/v1-1/), which AWS, Google Cloud, Azure and Oracle
all export. FOCUS has no instance-type column: each provider names the instance (or the GPU SKU)
in its own place, read here.

* AWS: its usage type (`x_UsageType` in FOCUS 1.0, `SkuMeter` in 1.2; see aws.py), or, in a
  file without them (the FinOps Foundation's sample data), the `ChargeDescription` it writes
  for an instance-hour ("$0.34 per On Demand Linux c5.2xlarge Instance Hour").
* Azure: `x_SkuMeterName` ("ND96isr H100 v5"), or, without it, the VM's product in
  `ChargeDescription` ("Virtual Machines ND Series - ND96isr H100 v5 - US East").
* Google Cloud: the GPU's own SKU in `ChargeDescription` ("Nvidia H100 80GB GPU running in
  Americas"), billed by the GPU-hour, as in its billing export (`_gcp_meter` in profiles.py).
* Any provider: `x_InstanceType`, or FOCUS 1.1's `SkuPriceDetails` JSON.

The four clouds name the instance of every instance-hour that way, so a line of theirs naming
none (a Lambda function's seconds, Fargate's vCPU-hours, an A3 VM's cores) is never read as an
instance's time: only another provider's compute line naming no type is, at the contract's node
size or as a question. The FinOps Foundation's sample data writes an empty cell as `NULL`.
"""

from __future__ import annotations

import json
import re

from engine.billing.aws import described_instance, is_capacity_block_fee, usage_meter
from engine.billing.charges import (
    ADJUSTMENT,
    CORRECTION,
    CREDIT,
    PURCHASE,
    TAX,
    USAGE,
    Profile,
    Row,
)
from engine.billing.charges import cell_low as _low
from engine.billing.charges import cell_text as _text
from engine.billing.covers import focus_cover
from engine.billing.meters import EGRESS, OTHER, PER_GPU, PER_INSTANCE, Meter, network_meter

_FOCUS_CHARGES = {"usage": USAGE, "purchase": PURCHASE, "tax": TAX, "credit": CREDIT}


def _focus_charge(row: Row) -> str:
    if _low(row, "charge_class") == "correction":
        return CORRECTION  # a correction to an earlier period: listed, not priced again
    if _low(row, "commitment_status") == "unused":
        return PURCHASE  # the part of a commitment bought and not used: no one's GPU time
    if _low(row, "capacity_status") == "unused":
        return PURCHASE  # capacity reserved and not run in (FOCUS 1.1): no node's GPU time
    for name in ("instance_type", "meter"):  # where `_focus_usage_type` finds AWS's
        cell = row.get(name)
        if isinstance(cell, str) and is_capacity_block_fee(cell):
            return PURCHASE  # AWS's Capacity Block, paid upfront: see aws.py
    return _FOCUS_CHARGES.get(_low(row, "charge"), ADJUSTMENT)


# A quantity of data (GB, GiB, TB, bytes), not of time or requests.
_DATA = re.compile(r"\b([kmgtp]i?b|bytes?|[kmgtp]i?bytes?|gigabytes?|gibibytes?)\b", re.I)
# An AWS usage type (`USE1-BoxUsage:p5.48xlarge`, `USE1-NatGateway-Hours`), not an instance's
# name: one word with a dash or colon and mixed case.
_USAGE_TYPE = re.compile(r"^(?=\S*[-:])\S*[A-Z][a-z]\S*$")
# A NAT gateway named in words or in its resource id (AWS `…:natgateway/nat-…`, Azure
# `…/natGateways/…`): its hours and the data it processes are network fees, not egress.
_NAT = re.compile(r"nat ?gateway", re.I)
# A unit of time alone ("Hours", "Hrs", "1 Hour", "10 Hours", "Seconds"), not of some other
# quantity over time ("vCPU-Hours", "Lambda-GB-Seconds", "GB Hours", "Units/Hour").
_WALL_TIME = re.compile(r"^(\d+\s*)?(hours?|hrs?|h|minutes?|mins?|seconds?|secs?|s)$")
# A GPU's own SKU, billed by the GPU-hour: Google's "Nvidia H100 80GB GPU running in Americas"
# and "A4 Nvidia B200 (1 gpu slice) running in Americas".
_GPU_SKU = re.compile(r"\bgpu(?: slice\))? running in\b", re.I)
# An Azure VM's hours described by its product ("Virtual Machines ND Series - ND96isr H100 v5 -
# US East"), where no x_SkuMeterName is exported: the meter between the dashes is the size.
_AZURE_VM = re.compile(r"^Virtual Machines [^-]*? - (.+?)(?: - [^-]+)?$")
# The clouds that name the instance of every instance-hour (see above), as `ProviderName`
# writes them: "AWS" (or "Amazon Web Services"), "Microsoft", "Google Cloud", "Oracle".
_NAMING = re.compile(r"^(aws|amazon|microsoft|google|oracle)\b")


def _focus_usage_type(row: Row) -> str:
    """AWS's usage type: x_UsageType in its FOCUS 1.0 export, SkuMeter in 1.2."""
    for name in ("instance_type", "meter"):
        text = _text(row.get(name))
        if _USAGE_TYPE.match(text):
            return text
    return ""


def _focus_type(row: Row) -> str:
    """FOCUS has no instance-type column: a provider's x_ column may name it (Azure's
    x_SkuMeterName `ND96isr H100 v5`; AWS's usage type is read by `usage_meter`), 1.1's
    SkuPriceDetails (JSON), or AWS's or Azure's description of an instance-hour."""
    named = _text(row.get("instance_type"))
    if named and not _USAGE_TYPE.match(named):
        return named
    details = _text(row.get("details"))
    if details.startswith("{"):
        try:
            parsed = json.loads(details)
        except ValueError:
            parsed = {}
        for name in ("InstanceType", "x_InstanceType", "x_instance_type"):
            if isinstance(parsed, dict) and parsed.get(name):
                return str(parsed[name])
    meter = _text(row.get("meter"))
    azure = _AZURE_VM.match(meter) if _low(row, "service") == "compute" else None
    return azure.group(1) if azure else described_instance(meter)


def _focus_meter(row: Row, timed: bool) -> Meter:
    unit, service = _low(row, "unit"), _low(row, "service")
    if timed and "gpu" in unit:
        return Meter(PER_GPU, _focus_type(row))
    usage_type = _focus_usage_type(row)
    known = usage_meter(usage_type=usage_type, timed=timed) if usage_type else None
    if known is not None:
        return known
    words = f"{_text(row.get('node'))} {_text(row.get('meter'))} {_text(row.get('instance_type'))}"
    # A networking line billed by the hour is a gateway's, a balancer's or an address's time:
    # egress is billed by the byte.
    if _NAT.search(words) or (timed and service == "networking"):
        return Meter(OTHER)
    if timed and _WALL_TIME.match(unit):
        instance = _focus_type(row)
        if instance:
            return Meter(PER_INSTANCE, instance)
        if _GPU_SKU.search(_text(row.get("meter"))):
            return Meter(PER_GPU)  # Google bills each attached GPU by the GPU-hour
        # An AWS usage type that names no instance (`USW2-Lambda-GB-Second`) is none.
        if service == "compute" and not usage_type and not _NAMING.match(_low(row, "provider")):
            return Meter(PER_INSTANCE)
    # Google names the meter in ChargeDescription and SkuMeter, Azure in x_SkuMeterName too.
    network = network_meter(f"{_text(row.get('meter'))} {_text(row.get('instance_type'))}")
    if network is not None:
        return Meter(network)
    # A networking line named in no words this knows: billed by the byte, it is data sent.
    return Meter(EGRESS if service == "networking" and _DATA.search(unit) else OTHER)


def _focus_effective(row: Row) -> str | None:
    """A usage row a commitment covered (CommitmentDiscountStatus "Used") bills 0.00 or its
    on-demand cost; its EffectiveCost is its share of what the commitment cost."""
    return "effective" if _low(row, "commitment_status") == "used" else None


FOCUS = Profile(
    name="focus",
    label="FOCUS 1.x (FinOps Open Cost and Usage Specification)",
    source="https://focus.finops.org/focus-specification/v1-1/",
    # A usage-only FOCUS export (CoreWeave's preview writes no cost column) is still FOCUS: read
    # as such, it is refused once for its missing costs (`costs`), not guessed at.
    signature=(
        ("BilledCost", "ConsumedQuantity", "PricingQuantity"),
        ("ChargePeriodStart",),
        ("ChargeCategory",),
    ),
    columns={
        "period_start": ("ChargePeriodStart",),
        "period_end": ("ChargePeriodEnd",),
        "node": ("ResourceId", "ResourceName"),
        "instance_type": ("x_InstanceType", "x_UsageType", "x_SkuMeterName"),
        "details": ("SkuPriceDetails",),
        "quantity": ("PricingQuantity", "ConsumedQuantity"),
        "unit": ("PricingUnit", "ConsumedUnit"),
        "rate": ("ContractedUnitPrice", "ListUnitPrice"),
        "amount": ("BilledCost",),
        "currency": ("BillingCurrency",),
        "charge": ("ChargeCategory",),
        "charge_class": ("ChargeClass",),
        "meter": ("SkuMeter", "ChargeDescription"),
        "service": ("ServiceCategory",),
        "effective": ("EffectiveCost",),
        "commitment_status": ("CommitmentDiscountStatus",),
        "commitment_type": ("CommitmentDiscountType",),
        "capacity_status": ("CapacityReservationStatus",),
        "provider": ("ProviderName", "ServiceProviderName"),
    },
    nulls=frozenset({"NULL"}),
    costs=("BilledCost", "EffectiveCost", "ListCost", "ContractedCost"),
    charge=_focus_charge,
    meter=_focus_meter,
    effective=_focus_effective,
    cover=focus_cover,
)
