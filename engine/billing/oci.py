"""Oracle Cloud Infrastructure's cost report: the CSV OCI writes to its Object Storage bucket every
six hours, one row per resource per hour
(https://docs.oracle.com/en-us/iaas/Content/Billing/Concepts/costusagereportsoverview.htm).

A GPU shape bills by the GPU-hour: `product/Description` "Compute - GPU - H100",
`cost/skuUnitDescription` "GPU Per Hour", `usage/billedQuantity` 8 for an hour of a
`BM.GPU.H100.8`, on the instance's OCID (`product/resourceId`). `cost/myCost` is what the
tenancy pays after its discounts; `cost/unitPrice` the price per unit. A correction is a row of
its own (`lineItem/isCorrection`) pointing at the row it corrects: listed, not priced again.
OCI's FOCUS export is read by the FOCUS profile.
"""

from __future__ import annotations

import re

from engine.billing.charges import CORRECTION, CREDIT, USAGE, Profile, Row
from engine.billing.charges import cell_low as _low
from engine.billing.charges import cell_text as _text
from engine.billing.meters import OTHER, PER_GPU, PER_INSTANCE, Meter, network_meter

# "Compute - GPU - H100", "Compute - GPU - A100 - v2": the GPU's model after the last "GPU - ".
_GPU_MODEL = re.compile(r"GPU\s*-\s*(.+)$", re.I)


def _charge(row: Row) -> str:
    if _low(row, "charge_class") in ("true", "yes", "1", "y"):
        return CORRECTION
    if "credit" in _low(row, "meter"):
        return CREDIT
    return USAGE


def _meter(row: Row, timed: bool) -> Meter:
    description = _text(row.get("meter"))
    if timed and "gpu" in f"{description} {_low(row, 'unit')}".lower():
        model = _GPU_MODEL.search(description)
        return Meter(PER_GPU, model.group(1).strip() if model else "")
    network = network_meter(description)
    if network is not None:
        return Meter(network)
    if timed and _low(row, "service") == "compute" and "ocpu" not in _low(row, "unit"):
        return Meter(PER_INSTANCE, description)
    return Meter(OTHER)  # OCPUs, memory, block volumes, Object Storage: fees


OCI = Profile(
    name="oci",
    label="Oracle Cloud Infrastructure cost report",
    source="https://docs.oracle.com/en-us/iaas/Content/Billing/Concepts/costusagereportsoverview.htm",
    signature=(
        ("lineItem/intervalUsageStart",),
        ("usage/billedQuantity",),
        ("cost/myCost",),
    ),
    columns={
        "period_start": ("lineItem/intervalUsageStart",),
        "period_end": ("lineItem/intervalUsageEnd",),
        "node": ("product/resourceId",),
        "quantity": ("usage/billedQuantity",),
        # Older reports name the unit in cost/billingUnitReadable, which OCI renamed
        # cost/skuUnitDescription (and now leaves empty).
        "unit": ("cost/skuUnitDescription", "cost/billingUnitReadable"),
        "rate": ("cost/unitPrice",),
        "amount": ("cost/myCost",),
        "currency": ("cost/currencyCode",),
        "charge_class": ("lineItem/isCorrection",),
        "meter": ("product/Description",),
        "service": ("product/service",),
    },
    charge=_charge,
    meter=_meter,
)
