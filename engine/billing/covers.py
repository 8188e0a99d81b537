"""The commitment bought ahead that covers a usage line, as each cloud's export names it: a
reserved instance, a savings plan, a Capacity Block, a FOCUS commitment discount. A covered line
bills 0.00 or its on-demand cost; where the file states no effective cost, what the hour cost
is unknown, and the line's rate finding says which commitment and how to see it."""

from __future__ import annotations

from engine.billing.charges import Cover, Row
from engine.billing.charges import cell_low as _low
from engine.billing.charges import cell_text as _text


def focus_cover(row: Row) -> Cover | None:
    if _low(row, "commitment_status") != "used":
        return None
    kind = _text(row.get("commitment_type"))  # "Reserved Instance", "Savings Plan"...
    return Cover(
        f"a commitment discount ({kind})" if kind else "a commitment discount",
        "FOCUS states what the hour cost in its EffectiveCost column: export it with the rows.",
    )


_AWS_COVERS = {
    "discountedusage": Cover(
        "a reserved instance",
        "Export the CUR with reservation_effective_cost to compare what the hour cost.",
    ),
    "savingsplancoveredusage": Cover(
        "a savings plan",
        "Export the CUR with savings_plan_savings_plan_effective_cost to compare what the "
        "hour cost.",
    ),
}
# The CUR's capacity reservation columns (https://docs.aws.amazon.com/cur/latest/userguide/
# table-dictionary-cur2-capacity-reservation.html) name a Capacity Block's hours, which bill
# the operating system's charge alone (0.00 for Linux): the block's fee paid for them.
_CAPACITY_BLOCK = Cover(
    "an EC2 Capacity Block for ML (paid upfront)",
    "The block's fee is listed with the purchases: compare it with the agreed rate × the "
    "block's GPU-hours.",
)


def aws_cover(row: Row) -> Cover | None:
    cover = _AWS_COVERS.get(_low(row, "charge"))
    # "EC2 Capacity Blocks for ML" in the CUR's words; EC2's API says "capacity-block". Asked
    # of every line of a CUR: two substring tests, no regex.
    kind = _low(row, "capacity_type")
    if cover is None and "capacity" in kind and "block" in kind:
        return _CAPACITY_BLOCK
    return cover


# Azure's PricingModel names the commitment covering a usage row. The amortized cost export
# bills the row its share of it; the actual-cost export bills it 0.00, the commitment's price
# being a purchase row of its own.
AZURE_COVERS = {
    "reservation": Cover(
        "an Azure reservation",
        "The amortized cost export bills each hour its share of the reservation: upload that "
        "export to compare what the hour cost.",
    ),
    "savingsplan": Cover(
        "an Azure savings plan",
        "The amortized cost export bills each hour its share of the savings plan: upload that "
        "export to compare what the hour cost.",
    ),
}
