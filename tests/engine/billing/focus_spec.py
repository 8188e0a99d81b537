"""The FOCUS 1.1 column rules, as the specification states them: for each column, its feature
level (Mandatory, Conditional, Recommended), whether it allows nulls, its data type and, where it
has them, its allowed values.

Source: the FinOps Foundation's specification repository, FinOps-Open-Cost-and-Usage-Spec/
FOCUS_Spec, tag v1.1, specification/columns/*.md (each column's constraint table and allowed
values table) and specification/attributes/*.md (date/time, numeric, currency code and null
handling formats). Conditional rules that tie columns together are checked in the test itself,
each quoted there from its column's text.

Why not focus-validator: its 1.0.0 release (the latest) knows FOCUS 1.0 preview names only
(`Provider`, `Publisher`, `ResourceID`, `InvoiceIssuer`), so it fails the FOCUS 1.1 sample of
tests/data/billing on columns 1.1 renamed; it also pins numpy<2, pandera 0.17, pandasql (which
needs SQLAlchemy<2) and multimethod<1.10.
"""

from __future__ import annotations

from typing import NamedTuple


class Column(NamedTuple):
    level: str
    nulls: bool
    type: str
    allowed: tuple[str, ...] = ()


SPEC_1_1: dict[str, Column] = {
    "AvailabilityZone": Column("Recommended", nulls=True, type="String"),
    "BilledCost": Column("Mandatory", nulls=False, type="Decimal"),
    "BillingAccountId": Column("Mandatory", nulls=False, type="String"),
    "BillingAccountName": Column("Mandatory", nulls=True, type="String"),
    "BillingCurrency": Column("Mandatory", nulls=False, type="String"),
    "BillingPeriodEnd": Column("Mandatory", nulls=False, type="Date/Time"),
    "BillingPeriodStart": Column("Mandatory", nulls=False, type="Date/Time"),
    "CapacityReservationId": Column("Conditional", nulls=True, type="String"),
    "CapacityReservationStatus": Column(
        "Conditional", nulls=True, type="String", allowed=("Used", "Unused")
    ),
    "ChargeCategory": Column(
        "Mandatory",
        nulls=False,
        type="String",
        allowed=("Usage", "Purchase", "Tax", "Credit", "Adjustment"),
    ),
    "ChargeClass": Column("Mandatory", nulls=True, type="String", allowed=("Correction",)),
    "ChargeDescription": Column("Mandatory", nulls=True, type="String"),
    "ChargeFrequency": Column(
        "Recommended", nulls=False, type="String", allowed=("One-Time", "Recurring", "Usage-Based")
    ),
    "ChargePeriodEnd": Column("Mandatory", nulls=False, type="Date/Time"),
    "ChargePeriodStart": Column("Mandatory", nulls=False, type="Date/Time"),
    "CommitmentDiscountCategory": Column(
        "Conditional", nulls=True, type="String", allowed=("Spend", "Usage")
    ),
    "CommitmentDiscountId": Column("Conditional", nulls=True, type="String"),
    "CommitmentDiscountName": Column("Conditional", nulls=True, type="String"),
    "CommitmentDiscountQuantity": Column("Conditional", nulls=True, type="Decimal"),
    "CommitmentDiscountStatus": Column(
        "Conditional", nulls=True, type="String", allowed=("Used", "Unused")
    ),
    "CommitmentDiscountType": Column("Conditional", nulls=True, type="String"),
    "CommitmentDiscountUnit": Column("Conditional", nulls=True, type="String"),
    "ConsumedQuantity": Column("Conditional", nulls=True, type="Decimal"),
    "ConsumedUnit": Column("Conditional", nulls=True, type="String"),
    "ContractedCost": Column("Mandatory", nulls=False, type="Decimal"),
    "ContractedUnitPrice": Column("Conditional", nulls=True, type="Decimal"),
    "EffectiveCost": Column("Mandatory", nulls=False, type="Decimal"),
    "InvoiceIssuerName": Column("Mandatory", nulls=False, type="String"),
    "ListCost": Column("Mandatory", nulls=False, type="Decimal"),
    "ListUnitPrice": Column("Conditional", nulls=True, type="Decimal"),
    "PricingCategory": Column(
        "Conditional",
        nulls=True,
        type="String",
        allowed=("Standard", "Dynamic", "Committed", "Other"),
    ),
    "PricingQuantity": Column("Mandatory", nulls=True, type="Decimal"),
    "PricingUnit": Column("Mandatory", nulls=True, type="String"),
    "ProviderName": Column("Mandatory", nulls=False, type="String"),
    "PublisherName": Column("Mandatory", nulls=False, type="String"),
    "RegionId": Column("Conditional", nulls=True, type="String"),
    "RegionName": Column("Conditional", nulls=True, type="String"),
    "ResourceId": Column("Conditional", nulls=True, type="String"),
    "ResourceName": Column("Conditional", nulls=True, type="String"),
    "ResourceType": Column("Conditional", nulls=True, type="String"),
    "ServiceCategory": Column(
        "Mandatory",
        nulls=False,
        type="String",
        allowed=(
            "AI and Machine Learning",
            "Analytics",
            "Business Applications",
            "Compute",
            "Databases",
            "Developer Tools",
            "Multicloud",
            "Identity",
            "Integration",
            "Internet of Things",
            "Management and Governance",
            "Media",
            "Migration",
            "Mobile",
            "Networking",
            "Security",
            "Storage",
            "Web",
            "Other",
        ),
    ),
    "ServiceName": Column("Mandatory", nulls=False, type="String"),
    "ServiceSubcategory": Column("Recommended", nulls=False, type="String"),
    "SkuId": Column("Conditional", nulls=True, type="String"),
    "SkuMeter": Column("Conditional", nulls=True, type="String"),
    "SkuPriceDetails": Column("Conditional", nulls=True, type="JSON"),
    "SkuPriceId": Column("Conditional", nulls=True, type="String"),
    "SubAccountId": Column("Conditional", nulls=True, type="String"),
    "SubAccountName": Column("Conditional", nulls=True, type="String"),
    "Tags": Column("Conditional", nulls=True, type="JSON"),
}
