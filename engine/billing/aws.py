"""What an AWS usage type meters. AWS names the meter of every usage line in its usage type:
`line_item_usage_type` in the Cost and Usage Report (legacy `lineItem/UsageType`), `x_UsageType`
in the FOCUS 1.0 export and `SkuMeter` in FOCUS 1.2
(https://docs.aws.amazon.com/cur/latest/userguide/table-dictionary-focus-1-2-migrating.html).

* `USE1-BoxUsage:p5.48xlarge` (and Spot, Dedicated, Host): an EC2 instance-hour. `UnusedBox`
  is an hour of a capacity reservation no instance ran in, which the CUR profile lists as a
  purchase.
* `USE1-Cluster:ml.p5.48xlarge`: a SageMaker HyperPod node-hour, billed under AmazonSageMaker,
  not AmazonEC2; `USE1-Train:ml.p4d.24xlarge` a training job's instance-hour, and likewise
  `Host:` (endpoints), `Processing:`, `Notebk:`, `Studio:JupyterLab-ml.…`
  (https://aws.amazon.com/sagemaker/ai/pricing/; the HyperPod usage type:
  https://awslabs.github.io/ai-on-sagemaker-hyperpod/docs/slurm-orchestration/add-ons/slurm-chargeback/cost-allocation-from-cur).
* Data transfer, by the rule of `meters.py` (egress is data leaving the region)
  (https://docs.aws.amazon.com/cur/latest/userguide/cur-data-transfers-charges.html):
  `USE1-DataTransfer-Out-Bytes` (to the internet), `USE1-USE2-AWS-Out-Bytes` and
  `USE1-AWS-Out-Bytes` (to another region, the latter over VPC peering),
  `USE1-CloudFront-Out-Bytes` (to CloudFront's edge, which bills its own
  `US-DataTransfer-Out-Bytes` again) and Direct Connect's `USE1-DataXfer-Out:…` are egress.
  `USE1-DataTransfer-Regional-Bytes` (between the region's Availability Zones, billed once in
  each direction), inbound `…-In-Bytes`, and the bytes a Transit Gateway, an endpoint or a load
  balancer processes are network fees.
* `USE1-NatGateway-Hours`, `USE1-NatGateway-Bytes` (product family "NAT Gateway", also
  `RegionalNatGateway-…`): the gateway's hours and the data it processed
  (https://aws.amazon.com/vpc/pricing/). Both are network fees, never egress: traffic the
  gateway sends to the internet is billed again, as `DataTransfer-Out-Bytes`.
* `USE2-CapacityBlockFee:p5.48xlarge` (no prefix in us-east-1): an EC2 Capacity Block for ML,
  paid upfront in one charge when it is bought (Cost Explorer's record type "Upfront", dated
  the block's first day; https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-pricing-billing.html).
  It is a purchase of instance-hours ahead of their use: listed apart like any purchase, never
  a fee against the fees bid and never GPU time a second time. The instances running in the
  block bill their hours on their own lines; this module assumes those carry the instance's
  usual usage type (`BoxUsage:p5.48xlarge`, at the operating system's hourly charge), which
  AWS's documentation does not spell out, so they reconcile as instance-hours like any other.
"""

from __future__ import annotations

import re
from functools import lru_cache

from engine.billing.meters import EGRESS, OTHER, PER_INSTANCE, Meter

_INSTANCE = re.compile(r"(?:BoxUsage|SpotUsage|DedicatedUsage|HostUsage|UnusedBox)(?::(.+))?$")
# Out of the region: to the internet, to another region, to CloudFront's edge, over Direct
# Connect. Any other `-Bytes` usage type moves data inside the region or into it.
_OUT = re.compile(r"(?:DataTransfer|DataXfer)-Out|-Out-[A-Z]?Bytes")
_CAPACITY_BLOCK_FEE = re.compile(r"(?:^|-)CapacityBlockFee(?::|$)")
# An EC2 instance-hour as AWS describes it (`line_item_line_item_description`, FOCUS's
# `ChargeDescription`): "$0.34 per On Demand Linux c5.2xlarge Instance Hour", "… Linux/UNIX
# (Amazon VPC), p5.48xlarge reserved instance applied". The operating system comes first, so an
# EBS-optimized line ("$0.05 for 1000 Mbps per c4.xlarge instance-hour") is no instance's hour.
_DESCRIBED = re.compile(
    r"\b(?:Linux|UNIX|Windows|RHEL|SUSE|BYOL)\b[^$]*?[\s,]"
    r"([a-z][a-z0-9-]*\.(?:\d*x?large|medium|small|micro|nano|metal[a-z0-9-]*))\s+"
    r"(?:(?:Spot|Dedicated)\s+)?(?:Instance[- ]Hour|reserved instance)",
    re.I,
)
# The `ml.` instance after a SageMaker component's colon; not `Cluster:VolumeUsage.gp2`.
_ML = re.compile(r":(?:[A-Za-z]+-)?(ml\.[a-z0-9-]+\.[a-z0-9]+)$")


@lru_cache(maxsize=1024)  # a bill repeats a few usage types on every line
def usage_meter(*, usage_type: str, instance_type: str = "", timed: bool) -> Meter | None:
    """What the usage type says the line meters (`instance_type`: the product's own column,
    preferred for EC2); None when it names nothing this knows, and the profile's other columns
    decide."""
    if "NatGateway" in usage_type:
        return Meter(OTHER)
    if timed:
        box = _INSTANCE.search(usage_type)
        if box is not None:
            return Meter(PER_INSTANCE, instance_type or box.group(1) or "")
        ml = _ML.search(usage_type)
        if ml is not None:
            # The usage type's spelling: the product column may write `ml.p5.48xlarge-Cluster`.
            return Meter(PER_INSTANCE, ml.group(1))
    if _OUT.search(usage_type):
        return Meter(EGRESS)
    if "Bytes" in usage_type or "DataXfer" in usage_type:
        return Meter(OTHER)  # between zones, inbound, or processed by a gateway
    return None


def is_capacity_block_fee(usage_type: str) -> bool:
    """Whether the usage type is a Capacity Block's upfront fee (`USE2-CapacityBlockFee:p5…`);
    the substring test first, as every line of a CUR asks."""
    return "CapacityBlockFee" in usage_type and _CAPACITY_BLOCK_FEE.search(usage_type) is not None


@lru_cache(maxsize=1024)
def described_instance(text: str) -> str:
    """The EC2 instance type AWS's description of an instance-hour names; "" when it names
    none (where no usage type is exported, the description is what names the instance)."""
    found = _DESCRIBED.search(text) if "nstance" in text else None
    return found.group(1) if found else ""
